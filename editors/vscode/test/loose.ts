// Hand-made protocol values in the tests leave out what a case does not need. The generated types
// (src/hermesproto.ts) say what the server always sends; the extension still copes with less, and
// these cases check that. loose() marks such a value as deliberately partial.

/** Loose is T with every field, at any depth, optional. */
export type Loose<T> = T extends readonly (infer E)[] ? Loose<E>[] : T extends object ? { [K in keyof T]?: Loose<T[K]> } : T;

/** loose takes a partial value as a T. */
export function loose<T>(v: Loose<T>): T {
	return v as unknown as T;
}
