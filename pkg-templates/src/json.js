// How every value crosses into the engine: JSON text. Non-finite numbers and
// BigInts become strings so the engine refuses them by name instead of
// JSON.stringify quietly turning NaN into null; functions and symbols become
// a marker object, so a field holding one is refused as the wrong type (by its
// path) instead of dropped and reported missing.
const replacer = (_key, value) => {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return { [typeof value]: 'not data' };
  return value;
};

export function stringify(value) {
  return JSON.stringify(value, replacer);
}
