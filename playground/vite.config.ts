// The playground's build: static files in dist/, relative paths so that any static server (or a
// sub-path) serves them; the reconciler, the scenario reader and the session come from
// @slotwise/reconciler, linked from packages/npm, outside this folder.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  server: { fs: { allow: ['..'] } },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    // The example scenarios (about a megabyte of text) are part of the page's script.
    chunkSizeWarningLimit: 1500,
  },
});
