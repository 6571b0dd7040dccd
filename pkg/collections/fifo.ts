// A first-in first-out list with O(1) shift: Array#shift copies the whole array, which a busy queue cannot afford.

export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head++;
    // Compact once the consumed prefix dominates, so memory stays proportional to what is queued.
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
