// How every value crosses into the engine: JSON text. Non-finite numbers and
// BigInts become strings so the engine refuses them by name instead of
// JSON.stringify quietly turning NaN into null.
const replacer = (_key, value) => {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  return value;
};

export function stringify(value) {
  return JSON.stringify(value, replacer);
}
