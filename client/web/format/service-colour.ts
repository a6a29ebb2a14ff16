/**
 * A service's colour, the same in every view and on every load: a hue from the name's hash, on
 * a lightness that reads on both colour schemes. Pure.
 */
export function serviceHue(service: string): number {
  let hash = 2166136261;
  for (let i = 0; i < service.length; i++) {
    hash ^= service.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % 360;
}

/** A CSS colour for the service's bars and markers. */
export function serviceColour(service: string): string {
  return `hsl(${serviceHue(service)} 60% 52%)`;
}
