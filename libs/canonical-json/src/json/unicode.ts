// With the `u` flag a well-formed surrogate pair is one code point, so only unpaired halves match.
const loneSurrogate = /\p{Surrogate}/u;

/** True when the string holds an unpaired UTF-16 surrogate (not representable in UTF-8, refused by I-JSON). */
export const hasLoneSurrogate = (text: string): boolean => loneSurrogate.test(text);
