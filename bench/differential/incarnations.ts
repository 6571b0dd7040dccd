// UIDs differ between the two control planes, so snapshots name objects by what the test created:
// "o3#1" is the first object the test created as o3, "o3#2" the one it created after o3 was
// deleted. A UID the test never created (an absent owner's) stays as it is: both sides got the same.

export class Incarnations {
  readonly #byUid = new Map<string, string>();
  readonly #created = new Map<string, number>();

  /** Notes that the test created `name` (unique within the case) and the API server gave it `uid`. */
  record(name: string, uid: string | undefined): void {
    if (!uid) throw new Error(`created ${name} but the API server returned no UID`);
    const count = (this.#created.get(name) ?? 0) + 1;
    this.#created.set(name, count);
    this.#byUid.set(uid, `${name}#${count}`);
  }

  /** "o3#2" for a UID the test created, "uid <uid>" otherwise. */
  nameOf(uid: string | undefined): string {
    return (uid && this.#byUid.get(uid)) ?? `uid ${uid ?? "(none)"}`;
  }
}
