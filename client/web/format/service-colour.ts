/**
 * A service's colour, the same in every view: a slot of a 16-colour palette chosen by the name's
 * hash. Two services of one page never share a colour (up to 16): a name whose slot is taken
 * takes the next free one, so a colour is stable across reloads unless two names' hashes collide,
 * and then it depends only on which was seen first. A plain hue-from-hash made "web" and
 * "checkout" the same green.
 */

/**
 * Hues far apart from one slot to the next, none of them red (red marks errors); lightness
 * alternates so that neighbours on the wheel still differ.
 */
const HUES = [210, 35, 150, 275, 185, 50, 320, 100, 240, 25, 165, 300, 130, 195, 70, 255];
const PALETTE = HUES.map((hue, i) => `hsl(${hue} 62% ${i % 2 ? 46 : 55}%)`);

/** FNV-1a with murmur3's finaliser: short names differ in their low bits too. */
export function nameHash(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** Palette slots handed out to names; the page holds one (serviceColour), a test its own. */
export class ServiceColours {
  private readonly slots = new Map<string, number>();
  private readonly taken = new Set<number>();

  colour(service: string): string {
    let slot = this.slots.get(service);
    if (slot === undefined) {
      slot = nameHash(service) % PALETTE.length;
      for (let probe = 0; probe < PALETTE.length && this.taken.has(slot); probe++) slot = (slot + 1) % PALETTE.length;
      this.slots.set(service, slot);
      this.taken.add(slot);
    }
    return PALETTE[slot] as string;
  }
}

const page = new ServiceColours();

/** A CSS colour for the service's bars and markers. */
export function serviceColour(service: string): string {
  return page.colour(service);
}
