import { expect } from "chai";
import { nameHash, ServiceColours, serviceColour } from "../../../../client/web/format/service-colour.js";

describe("service colours", () => {
  it("gives a service the same colour every time it is asked", () => {
    expect(serviceColour("checkout")).to.equal(serviceColour("checkout"));
  });

  it("gives sixteen services sixteen different colours, also when their hashes collide", () => {
    const names = Array.from({ length: 16 }, (_, i) => `svc-${i}`);
    const slots = new Set(names.map((name) => nameHash(name) % 16));
    expect(slots.size, "the names include colliding hashes").to.be.lessThan(16);
    const colours = new ServiceColours();
    expect(new Set(names.map((name) => colours.colour(name))).size).to.equal(16);
  });

  it("spreads short names over the palette (the low bits of the hash differ)", () => {
    expect(
      new Set(["web", "checkout", "payments", "api", "db"].map((name) => nameHash(name) % 16)).size,
    ).to.be.at.least(4);
  });
});
