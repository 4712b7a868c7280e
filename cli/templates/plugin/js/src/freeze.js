// What the plugin decides, as plain functions: how its settings read, and the answer on every
// slot of a post-slot batch.

/**
 * Reads the settings text, `{"frozen": ["web"]}`.
 *
 * @param {string} text the settings as JSON
 * @returns {string[]} the frozen groups
 * @throws {string} what is wrong, naming the field
 */
export function readSettings(text) {
  let settings;
  try {
    settings = JSON.parse(text);
  } catch (e) {
    throw `settings are not JSON: ${e.message}`;
  }
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw 'settings must be an object like {"frozen": ["web"]}';
  }
  for (const key of Object.keys(settings)) {
    if (key !== "frozen") throw `${key}: unknown field; the only setting is \`frozen\``;
  }
  const { frozen } = settings;
  if (!Array.isArray(frozen) || !frozen.every((g) => typeof g === "string")) {
    throw "frozen: give a list of group names";
  }
  return frozen;
}

/**
 * One answer per slot of `batch`, in its order: a veto for the slots of a frozen group, an
 * acceptance for the others; and the lines to log.
 *
 * @param {string[]} frozen the frozen groups
 * @param {object} batch a `slot-batch` as the component receives it
 * @returns {{answers: object[], lines: string[]}}
 */
export function postSlot(frozen, batch) {
  const answers = [];
  let vetoed = 0;
  for (const group of batch.groups) {
    const decision = frozen.includes(group.name)
      ? { tag: "veto", val: `group ${group.name} is frozen` }
      : { tag: "accept" };
    for (let at = group.slots.first; at < group.slots.first + group.slots.count; at++) {
      if (decision.tag === "veto") vetoed += 1;
      answers.push({ slot: at, decision });
    }
  }
  const lines = vetoed > 0 ? [`kept ${vetoed} of ${batch.slots.length} slots as they are`] : [];
  return { answers, lines };
}
