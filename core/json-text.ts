// A value serialized to JSON once, for answers read far more often than they change (the status view of a cached
// session). JSON.stringify(jsonText) gives the same text as JSON.stringify(value); `text` skips the work.
export class JsonText<T = unknown> {
  readonly text: string;

  constructor(readonly value: T) {
    this.text = JSON.stringify(value);
  }

  toJSON(): T {
    return this.value;
  }
}
