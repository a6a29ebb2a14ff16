import { expect } from "chai";
import { settingFlagsOf } from "../../../shared/collector-flags.js";
import { resolveSettings, SettingsError } from "../../../shared/collector-settings.js";
import { forwardSummary } from "../../../shared/forward-settings.js";

describe("forwarding settings", () => {
  it("takes --forward, --forward-protocol and --forward-header, URLs without a trailing slash, header names lower-cased", () => {
    const { settings, sources } = resolveSettings(
      {
        forward: ["http://collector.internal:4318/", "https://otlp.example.com/otlp"],
        forwardProtocol: "grpc",
        forwardHeaders: ["Authorization=Bearer abc=def"],
      },
      {},
    );
    expect(settings.forward).to.deep.equal([
      { url: "http://collector.internal:4318", protocol: "grpc", headers: [["authorization", "Bearer abc=def"]] },
      { url: "https://otlp.example.com/otlp", protocol: "grpc", headers: [["authorization", "Bearer abc=def"]] },
    ]);
    expect(sources.forward).to.equal("flag");
  });

  it("falls back to OBS_FORWARD, OBS_FORWARD_PROTOCOL and OBS_FORWARD_HEADERS (percent-decoded), and defaults to none", () => {
    const env = {
      OBS_FORWARD: "http://a:4318, http://b:4318",
      OBS_FORWARD_PROTOCOL: "http/json",
      OBS_FORWARD_HEADERS: "x-api-key=a%2Cb,tenant=t1",
    };
    const { settings, sources } = resolveSettings({}, env);
    expect(settings.forward.map((d) => d.url)).to.deep.equal(["http://a:4318", "http://b:4318"]);
    expect(settings.forward[0]?.protocol).to.equal("http/json");
    expect(settings.forward[0]?.headers).to.deep.equal([
      ["x-api-key", "a,b"],
      ["tenant", "t1"],
    ]);
    expect(sources.forward).to.equal("env");
    expect(resolveSettings({}, {}).settings.forward).to.deep.equal([]);
    expect(resolveSettings({}, {}).sources.forward).to.equal("default");
  });

  it("gives each part its own source, and names where a refused part came from", () => {
    const env = { OBS_FORWARD_HEADERS: "x-api-key=k", OBS_FORWARD_PROTOCOL: "" };
    const { sources } = resolveSettings({ forward: ["http://x"] }, env);
    expect(sources).to.include({ forward: "flag", forwardProtocol: "default", forwardHeaders: "env" });
    const flagged = resolveSettings({ forwardProtocol: "grpc" }, { OBS_FORWARD: "http://x" }).sources;
    expect(flagged).to.include({ forward: "env", forwardProtocol: "flag", forwardHeaders: "default" });
    expect(() => resolveSettings({ forward: ["http://x"] }, { OBS_FORWARD_HEADERS: "nameonly" })).to.throw(
      SettingsError,
      /NAME=VALUE.*\(OBS_FORWARD_HEADERS\)$/,
    );
    expect(() => resolveSettings({ forward: ["http://x"] }, { OBS_FORWARD_PROTOCOL: "udp" })).to.throw(
      SettingsError,
      /"udp".*\(OBS_FORWARD_PROTOCOL\)$/,
    );
  });

  it("refuses a forwarding flag given without a value, rather than using the environment's in its place", () => {
    const env = { OBS_FORWARD: "http://up.example:4318", OBS_FORWARD_HEADERS: "k=v" };
    expect(() => resolveSettings({ forward: [""] }, env)).to.throw(SettingsError, "--forward needs a value");
    expect(() => resolveSettings({ forwardHeaders: [""] }, env)).to.throw(
      SettingsError,
      "--forward-header needs a value",
    );
    expect(() => resolveSettings({ forwardProtocol: "" }, env)).to.throw(
      SettingsError,
      "--forward-protocol needs a value",
    );
    // As yargs hands them over: a repeatable flag with no value is an empty list.
    expect(settingFlagsOf({ forward: [], forwardHeader: [] })).to.deep.include({ forward: [""], forwardHeaders: [""] });
    expect(settingFlagsOf({})).to.include({ forward: undefined, forwardHeaders: undefined });
  });

  it("lets the environment's protocol and headers wait in a profile while forwarding is off", () => {
    const { settings, sources } = resolveSettings(
      {},
      { OBS_FORWARD_HEADERS: "x-api-key=k", OBS_FORWARD_PROTOCOL: "grpc" },
    );
    expect(settings.forward).to.deep.equal([]);
    expect(sources).to.include({ forward: "default", forwardProtocol: "default", forwardHeaders: "default" });
  });

  it("refuses what it cannot send to, naming the flag, and never quotes a header's value", () => {
    const refused = (flags: Parameters<typeof resolveSettings>[0]) => {
      try {
        resolveSettings(flags, {});
      } catch (error) {
        expect(error).to.be.instanceOf(SettingsError);
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(refused({ forward: ["ftp://x"] })).to.match(/--forward URL "ftp:\/\/x": only http/);
    expect(refused({ forward: ["http://user:pw@x"] })).to.match(/credentials in --forward-header/);
    expect(refused({ forward: ["http://x"], forwardProtocol: "udp" })).to.match(/--forward-protocol "udp"/);
    expect(refused({ forward: ["http://x"], forwardHeaders: ["nameonly"] })).to.match(/NAME=VALUE/);
    for (const name of ["content-type", "Transfer-Encoding", "connection", "upgrade"]) {
      expect(refused({ forward: ["http://x"], forwardHeaders: [`${name}=x`] })).to.include(
        `${name.toLowerCase()} is set by obs or the connection`,
      );
    }
    expect(refused({ forwardHeaders: ["k=v"] })).to.match(/need a --forward URL/);
    const secret = refused({ forward: ["http://x"], forwardHeaders: ["k=line\nbreak-secret"] });
    expect(secret)
      .to.match(/printable ASCII/)
      .and.not.include("break-secret");
    expect(refused({ forward: ["http://x"], forwardHeaders: ["k=price-€"] })).to.match(/printable ASCII/);
    expect(refused({ forward: ["http://user:hunter22@x"] })).to.not.include("hunter22");
  });

  it("shows header names with masked values", () => {
    const { settings } = resolveSettings(
      { forward: ["http://x"], forwardHeaders: ["authorization=Bearer s3cret", "tenant=t"] },
      {},
    );
    expect(forwardSummary(settings.forward)).to.deep.equal({
      urls: "http://x",
      protocol: "http/protobuf",
      headers: "authorization=***, tenant=***",
    });
  });

  it("never repeats the password of a --forward URL it refuses for another reason", () => {
    for (const url of ["ftp://u:secret@h", "https://u:secret@h/?x=1", "https://u:sec/ret@h?x"]) {
      let message = "";
      try {
        resolveSettings({ forward: [url] }, {});
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, url).to.match(/^invalid --forward URL/);
      expect(message, url).not.to.match(/sec\/?ret/);
    }
  });
});
