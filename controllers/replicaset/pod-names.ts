// Pod names chosen by the controller rather than by the API server's generateName, in the very
// form the API server would give them (`web-x7k2p`): a create sent again under the same name can
// only ever make one Pod, so a create whose answer was lost can be repeated safely.

/** The API server's limit for a generated name, and the random part it appends. */
const maxNameLength = 63;
const randomLength = 5;
/** The characters the API server draws from: no vowels, no look-alikes such as 0/o or 1/l. */
const alphabet = "bcdfghjklmnpqrstvwxz2456789";

/** `prefix` (cut short to leave room) followed by 5 random characters, as the API server expands generateName. */
export function generatedName(prefix: string): string {
  const random = crypto.getRandomValues(new Uint32Array(randomLength));
  const suffix = Array.from(random, (value) => alphabet[value % alphabet.length]).join("");
  return prefix.slice(0, maxNameLength - randomLength) + suffix;
}
