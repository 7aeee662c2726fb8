/**
 * An Error whose text is built only when read. Parse errors quote their input, which a tenant can make megabytes
 * long; where the error is caught and dropped (isIP, CEL's `||` absorbing an error), building it is wasted work.
 */
export class LazyMessageError extends Error {
  readonly #text: () => string;
  #built: string | undefined;

  constructor(text: () => string) {
    super();
    this.#text = text;
  }

  override get message(): string {
    return (this.#built ??= this.#text());
  }
}
