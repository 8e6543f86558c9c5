/** Whether an object is a plain one (an object literal's, `JSON.parse`'s, or one with no prototype): JSON's objects. */
export const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};
