"""Where the tests find the repository, the `slotwise` command to compare with, and the scenarios they read.

`SLOTWISE_ROOT` names the repository and `SLOTWISE` the command; by default,
the repository this file sits in and its debug build.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict

import slotwise

ROOT = Path(os.environ.get("SLOTWISE_ROOT", Path(__file__).resolve().parents[3]))
SLOTWISE = os.environ.get("SLOTWISE", str(ROOT / "target/debug/slotwise"))
SCENARIOS = [
    "docs/examples/rolling-update.yaml",
    "docs/examples/node-down.yaml",
    "docs/examples/system/node-drains-during-canaries.yaml",
    "docs/examples/canary-rollout/round-3-canaries-healthy.yaml",
]


def scenario_input(scenario: str) -> Dict[str, Any]:
    """The input the scenario file at ``scenario`` (relative to the repository) describes."""
    return dict(slotwise.read_scenario((ROOT / scenario).read_text()))
