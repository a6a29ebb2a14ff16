import { expect } from "chai";
import { addressOfUrl, listensAt, listensOn } from "../../../client/discovery/named-address.js";

describe("a named collector URL against a registry entry's address", () => {
  const entry = { host: "127.0.0.1", port: 27686 };

  it("matches the same host and port", () => {
    expect(listensAt(entry, "http://127.0.0.1:27686")).to.equal(true);
  });

  it("counts loopback names and addresses as one host", () => {
    expect(listensAt(entry, "http://localhost:27686")).to.equal(true);
    expect(listensAt(entry, "http://[::1]:27686")).to.equal(true);
    expect(listensAt({ host: "::1", port: 27686 }, "http://localhost:27686/")).to.equal(true);
  });

  it("refuses another port, even on the same host", () => {
    expect(listensAt(entry, "http://127.0.0.1:27994")).to.equal(false);
    expect(listensAt(entry, "http://127.0.0.1")).to.equal(false);
  });

  it("refuses a loopback URL for a collector bound to another address, and the reverse", () => {
    expect(listensAt({ host: "192.168.1.5", port: 27686 }, "http://127.0.0.1:27686")).to.equal(false);
    expect(listensAt(entry, "http://192.168.1.5:27686")).to.equal(false);
  });

  it("a collector bound to every interface answers on any host at its port", () => {
    expect(listensAt({ host: "0.0.0.0", port: 27686 }, "http://192.168.1.5:27686")).to.equal(true);
    expect(listensAt({ host: "0.0.0.0", port: 27686 }, "http://127.0.0.1:1")).to.equal(false);
  });

  it("reads the default port of a URL without one, and refuses what is not an http URL", () => {
    expect(addressOfUrl("http://localhost")).to.deep.equal({ host: "localhost", port: 80 });
    expect(addressOfUrl("not a url")).to.equal(null);
    expect(listensAt(entry, "ftp://127.0.0.1:27686")).to.equal(false);
  });

  it("finds the collector a start's host and port reach by the same rule, as given on the command line", () => {
    expect(listensOn(entry, "localhost", 27686)).to.equal(true);
    expect(listensOn(entry, "LOCALHOST", 27686)).to.equal(true);
    expect(listensOn({ host: "::1", port: 27686 }, "[::1]", 27686)).to.equal(true);
    expect(listensOn({ host: "0.0.0.0", port: 27686 }, "127.0.0.1", 27686)).to.equal(true);
    // Asked for every interface, a collector on loopback alone is not what was asked for.
    expect(listensOn(entry, "0.0.0.0", 27686)).to.equal(false);
    expect(listensOn(entry, "localhost", 27687)).to.equal(false);
  });
});
