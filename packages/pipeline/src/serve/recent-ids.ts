// A bounded memory of recently handled X-GitHub-Delivery ids: GitHub redelivers an event with the same id, and the
// receiver must not act on it twice. When full, the oldest id is forgotten first.
export class RecentIds {
  // A Set iterates in insertion order, so its first element is the oldest.
  private readonly ids = new Set<string>();

  constructor(readonly capacity: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size <= this.capacity) return;
    const oldest = this.ids.values().next();
    if (!oldest.done) this.ids.delete(oldest.value);
  }
}
