/**
 * One subscriber's events, waiting for it to read them: at most `capacity`. The hub offers each event;
 * a full queue refuses it, and the hub then fails the subscriber (its next read throws, its stream
 * ends) rather than let the queue grow or drop events silently.
 */
export class SubscriberQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private reader: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;
  private failure: Error | null = null;
  private ended = false;

  /** `onEnd` runs once, when the queue ends for any reason (the reader left, failed or finished). */
  constructor(
    readonly capacity: number,
    private readonly onEnd: () => void,
  ) {}

  /** Events waiting. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** Queues `item`, or hands it to a waiting reader; `false` when the queue is full (nothing is queued). */
  offer(item: T): boolean {
    if (this.ended) return true;
    if (this.reader) {
      const { resolve } = this.reader;
      this.reader = null;
      resolve({ value: item, done: false });
      return true;
    }
    if (this.length >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  /** Drops what is queued; the reader's next read throws `error`, and the one after ends. */
  fail(error: Error): void {
    if (this.ended) return;
    this.clear();
    this.failure = error;
    this.finish();
    const reader = this.reader;
    this.reader = null;
    if (reader) {
      this.failure = null;
      reader.reject(error);
    }
  }

  /** Ends after what is queued (the hub is closing). */
  end(): void {
    if (this.ended) return;
    this.finish();
    this.reader?.resolve({ value: undefined, done: true });
    this.reader = null;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.length > 0) {
      const value = this.items[this.head]!;
      this.items[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) this.compact();
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== null) {
      const error = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.reader = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.clear();
    this.failure = null;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T>> {
    void error;
    return this.return();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private finish(): void {
    this.ended = true;
    this.onEnd();
  }

  private clear(): void {
    this.items = [];
    this.head = 0;
  }

  private compact(): void {
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}
