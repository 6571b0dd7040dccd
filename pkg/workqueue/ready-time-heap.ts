// Items waiting for a ready time: a binary min-heap with one entry per item, so an item can be moved earlier in place.

interface Entry<T> {
  item: T;
  readyAt: number;
  /** Arrival order, so items ready at the same time come out first-in first-out. */
  seq: number;
  index: number;
}

export class ReadyTimeHeap<T> {
  private readonly entries: Entry<T>[] = [];
  private readonly byItem = new Map<T, Entry<T>>();
  private seq = 0;

  get size(): number {
    return this.entries.length;
  }

  /** Schedules `item` for `readyAt`; an item already waiting keeps the earlier of its two ready times. */
  schedule(item: T, readyAt: number): void {
    const existing = this.byItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.siftUp(existing.index);
      }
      return;
    }
    const entry: Entry<T> = { item, readyAt, seq: this.seq++, index: this.entries.length };
    this.entries.push(entry);
    this.byItem.set(item, entry);
    this.siftUp(entry.index);
  }

  /** The earliest ready time, or undefined when nothing waits. */
  nextReadyAt(): number | undefined {
    return this.entries[0]?.readyAt;
  }

  /** Removes and returns every item whose ready time is at or before `now`, earliest first. */
  popReady(now: number): T[] {
    const ready: T[] = [];
    for (let top = this.entries[0]; top && top.readyAt <= now; top = this.entries[0]) {
      this.removeTop();
      ready.push(top.item);
    }
    return ready;
  }

  clear(): void {
    this.entries.length = 0;
    this.byItem.clear();
  }

  private removeTop(): void {
    const top = this.entries[0];
    const last = this.entries.pop();
    if (!top || !last) return;
    this.byItem.delete(top.item);
    if (last === top) return;
    this.place(last, 0);
    this.siftDown(0);
  }

  private before(a: Entry<T>, b: Entry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private place(entry: Entry<T>, index: number): void {
    this.entries[index] = entry;
    entry.index = index;
  }

  private siftUp(index: number): void {
    const entry = this.entries[index] as Entry<T>;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = this.entries[parentIndex] as Entry<T>;
      if (!this.before(entry, parent)) break;
      this.place(parent, index);
      index = parentIndex;
    }
    this.place(entry, index);
  }

  private siftDown(index: number): void {
    const entry = this.entries[index] as Entry<T>;
    const count = this.entries.length;
    for (;;) {
      let childIndex = 2 * index + 1;
      if (childIndex >= count) break;
      const right = childIndex + 1;
      if (right < count && this.before(this.entries[right] as Entry<T>, this.entries[childIndex] as Entry<T>)) {
        childIndex = right;
      }
      const child = this.entries[childIndex] as Entry<T>;
      if (!this.before(child, entry)) break;
      this.place(child, index);
      index = childIndex;
    }
    this.place(entry, index);
  }
}
