/** A JSON object (not an array, not null): what the service's bodies and the config file must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
