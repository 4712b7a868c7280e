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
  const settings = parsed(text);
  const unknown = Object.keys(settings).find((key) => key !== "frozen");
  if (unknown !== undefined) throw `${unknown}: unknown field; the only setting is \`frozen\``;
  const groups = settings.frozen;
  const names = Array.isArray(groups) && groups.every((g) => typeof g === "string");
  if (!names) throw "frozen: give a list of group names";
  return groups;
}

/** `text` as a JSON object, or what is wrong with it. */
function parsed(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw `settings are not JSON: ${e.message}`;
  }
  const object = typeof value === "object" && value !== null && !Array.isArray(value);
  if (!object) throw 'settings are an object, like {"frozen": ["web"]}';
  return value;
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
