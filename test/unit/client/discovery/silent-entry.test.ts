import { expect } from "chai";
import { type SilentEntryFacts, silentEntryFate } from "../../../../client/discovery/silent-entry.js";

describe("what discovery makes of an entry its socket did not answer for", () => {
  const fate = (facts: Partial<SilentEntryFacts>) =>
    silentEntryFate({ socket: "unreachable", alive: true, identity: "unknown", startsReadable: true, ...facts });

  it("removes the entry of a pid that no process has, or that a later process was given", () => {
    expect(fate({ alive: false, socket: "timeout", identity: "same" })).to.equal("stale");
    expect(fate({ identity: "other", socket: "timeout" })).to.equal("stale");
    expect(fate({ identity: "other" })).to.equal("stale");
  });

  it("keeps a live collector whose socket accepts but does not answer (stopped or busy)", () => {
    expect(fate({ socket: "timeout", identity: "same" })).to.equal("unresponsive");
    // Whatever the clock did, and whether or not starts can be read.
    expect(fate({ socket: "timeout", identity: "unknown", startsReadable: false })).to.equal("unresponsive");
  });

  it("keeps one without its socket where /proc shows its start, or its live pid for an older entry", () => {
    expect(fate({ identity: "same" })).to.equal("withoutSocket");
    expect(fate({ socket: "unasked", identity: "same", startsReadable: true })).to.equal("withoutSocket");
    expect(fate({ identity: "unknown", startsReadable: true })).to.equal("withoutSocket");
  });

  it("off Linux (no /proc), removes one whose socket is gone or refuses: its pid may be another process's", () => {
    expect(fate({ identity: "unknown", startsReadable: false })).to.equal("stale");
  });

  it("keeps a live one whose socket was not asked (a folder others can reach): it may well answer there", () => {
    // Removed, its collector would write it again at its next check, and the next command
    // remove it again.
    expect(fate({ socket: "unasked", identity: "unknown", startsReadable: false })).to.equal("withoutSocket");
  });
});
