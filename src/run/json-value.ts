/** A JSON value: what survives a snapshot byte for byte. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
