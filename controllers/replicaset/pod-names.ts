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

/** Draws per name at most: among 27^5 names a second draw is already rare; past the last, the create fails AlreadyExists. */
const maxDraws = 16;

/**
 * The names of one sync's creates. A create answered AlreadyExists is settled by reading the Pod
 * back, and one of the ReplicaSet's own counts as made by that create: so no two creates may share
 * a name, and none may take the name of a Pod the ReplicaSet has already, or two creates would
 * count one Pod and the ReplicaSet would wait for a Pod that never comes. The cache holds every
 * Pod of earlier syncs (the expectations saw each one), so a name neither cached nor drawn in this
 * sync is no Pod of the ReplicaSet's.
 */
export class SyncPodNames {
  private readonly drawn = new Set<string>();

  constructor(
    private readonly prefix: string,
    /** True when the cache holds a Pod of that name in the ReplicaSet's namespace. */
    private readonly cached: (name: string) => boolean,
  ) {}

  /** A name that is neither cached nor drawn before in this sync. */
  next(): string {
    let name = generatedName(this.prefix);
    for (let draw = 1; draw < maxDraws && this.taken(name); draw++) name = generatedName(this.prefix);
    this.drawn.add(name);
    return name;
  }

  private taken(name: string): boolean {
    return this.drawn.has(name) || this.cached(name);
  }
}
