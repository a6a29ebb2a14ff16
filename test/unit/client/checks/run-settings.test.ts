import { expect } from "chai";
import { resolveProvider, resolveRunSettings } from "../../../../client/checks/config/run-settings.js";
import { LifecycleError } from "../../../../client/lifecycle/lifecycle-error.js";

const CWD = "/work/project";

describe("browser-check run settings", () => {
  it("takes a flag over the environment over the config over the default", () => {
    const config = { baseUrl: "http://config", maxSteps: 5, provider: "mock" as const, mockTranscript: "t.json" };
    const env = { OBS_BASE_URL: "http://env" };
    expect(resolveRunSettings({}, config, "/cfg", env, CWD).baseUrl).to.equal("http://env");
    expect(resolveRunSettings({ baseUrl: "http://flag" }, config, "/cfg", env, CWD).baseUrl).to.equal("http://flag");
    expect(resolveRunSettings({}, config, "/cfg", {}, CWD).baseUrl).to.equal("http://config");
    const defaults = resolveRunSettings({ provider: "mock", mockTranscript: "t.json" }, {}, CWD, {}, CWD);
    expect(defaults).to.deep.include({
      baseUrl: null,
      engine: "engine_a",
      headed: false,
      maxSteps: null,
      workers: 1,
      reportDir: "/work/project/.obs",
      patterns: ["**/*.obs.ts", "**/*.obs.tsx"],
      frameIntervalMs: 200,
    });
    expect(defaults.reporters).to.deep.equal(["basic", "json", "junit", "html"]);
  });

  it("resolves config paths against the config's folder and flag paths against the working folder", () => {
    const config = { reportDir: "out", mockTranscript: "fixtures/t.json" };
    const settings = resolveRunSettings({ provider: "mock" }, config, "/cfg", {}, CWD);
    expect(settings.reportDir).to.equal("/cfg/out");
    expect(settings.provider.transcriptPath).to.equal("/cfg/fixtures/t.json");
    const flagged = resolveRunSettings(
      { provider: "mock", mockTranscript: "t.json", reportDir: "r" },
      config,
      "/cfg",
      {},
      CWD,
    );
    expect(flagged.provider.transcriptPath).to.equal("/work/project/t.json");
    expect(flagged.reportDir).to.equal("/work/project/r");
    // Spec patterns likewise: testMatch (or the default) from the config's folder, arguments from the working folder.
    expect(
      resolveRunSettings({ provider: "mock" }, { ...config, testMatch: ["e2e/**/*.obs.ts"] }, "/cfg", {}, CWD),
    ).to.include({
      patternsDir: "/cfg",
    });
    expect(settings.patternsDir).to.equal("/cfg");
    const given = resolveRunSettings({ provider: "mock", patterns: ["a.obs.ts"] }, config, "/cfg", {}, CWD);
    expect(given).to.deep.include({ patterns: ["a.obs.ts"], patternsDir: CWD });
  });

  it("takes retries from the flag, else the config, else none", () => {
    const mock = { provider: "mock", mockTranscript: "t.json" };
    expect(resolveRunSettings(mock, {}, CWD, {}, CWD).retries).to.equal(0);
    expect(resolveRunSettings(mock, { retries: 2 }, CWD, {}, CWD).retries).to.equal(2);
    expect(resolveRunSettings({ ...mock, retries: 0 }, { retries: 2 }, CWD, {}, CWD).retries).to.equal(0);
  });

  it("refuses bad values as usage errors", () => {
    const mock = { provider: "mock", mockTranscript: "t.json" };
    const refuse = (flags: object, message: RegExp) =>
      expect(() => resolveRunSettings({ ...mock, ...flags }, {}, CWD, {}, CWD))
        .to.throw(message)
        .with.property("code", "invalid_argument");
    refuse({ viewport: "wide" }, /--viewport "wide" is not WIDTHxHEIGHT/);
    refuse({ maxSteps: 0 }, /--max-steps must be a whole number of at least 1/);
    refuse({ browser: "engine_z" }, /unknown browser "engine_z"/);
    refuse({ reporter: "pdf" }, /unknown reporter "pdf"/);
    refuse({ retries: -1 }, /--retries must be a whole number/);
    refuse({ baseUrl: "not a url" }, /--base-url "not a url" is not a URL/);
    expect(resolveRunSettings({ ...mock, viewport: "1280x800" }, {}, CWD, {}, CWD).viewport).to.deep.equal({
      width: 1280,
      height: 800,
    });
  });

  describe("trace propagation", () => {
    const exporting = { provider: "mock", mockTranscript: "t.json", otelEndpoint: "http://127.0.0.1:27686" };
    const settings = (flags: object) => resolveRunSettings({ ...exporting, ...flags }, {}, CWD, {}, CWD);

    it("sends trace context only to the allowlist's hosts, and is off by default", () => {
      expect(settings({}).telemetry?.propagateTo).to.equal(null);
      const on = settings({ otelPropagate: true, otelPropagateAllowlist: "localhost:3000,api.internal" });
      expect(on.telemetry?.propagateTo).to.deep.equal([
        { hostname: "localhost", port: "3000" },
        { hostname: "api.internal", port: null },
      ]);
    });

    it("refuses propagation without an endpoint or an allowlist, and an allowlist alone", () => {
      const refuse = (flags: object, message: RegExp) =>
        expect(() => settings(flags))
          .to.throw(message)
          .with.property("code", "invalid_argument");
      refuse({ otelPropagate: true }, /names none; e\.g\. --otel-propagate-allowlist localhost:3000/);
      refuse(
        { otelPropagate: true, baseUrl: "http://127.0.0.1:5173/app" },
        /--otel-propagate-allowlist 127\.0\.0\.1:5173$/,
      );
      refuse(
        { otelPropagate: true, otelPropagateAllowlist: "localhost", otelEndpoint: undefined },
        /needs --otel-endpoint/,
      );
      refuse({ otelPropagateAllowlist: "localhost" }, /has no effect without --otel-propagate/);
      refuse({ otelPropagate: true, otelPropagateAllowlist: "*.test" }, /entry "\*\.test" is not a host/);
    });
  });

  describe("provider", () => {
    const resolve = (flags: object, env: NodeJS.ProcessEnv, config: object = {}) =>
      resolveProvider(flags, config, CWD, env, CWD);

    it("is inferred from the key in the environment when not named", () => {
      expect(resolve({}, { ANTHROPIC_API_KEY: "a" })).to.deep.include({ name: "anthropic", apiKey: "a" });
      expect(resolve({}, { OPENAI_API_KEY: "o" })).to.deep.include({
        name: "openai",
        apiKey: "o",
        model: "gpt-4.1-mini",
      });
      expect(resolve({ model: "m" }, { OPENAI_API_KEY: "o", OBS_MODEL: "e" }).model).to.equal("m");
    });

    it("fails before anything starts when unknown, unkeyed or unconfigured", () => {
      expect(() => resolve({}, {})).to.throw(/no model provider is configured/);
      expect(() => resolve({ provider: "gemini" }, {})).to.throw(
        /unknown provider "gemini": use one of openai, anthropic, mock/,
      );
      expect(() => resolve({ provider: "anthropic" }, { OPENAI_API_KEY: "o" })).to.throw(
        /anthropic provider needs an API key: set ANTHROPIC_API_KEY/,
      );
      expect(() => resolve({ provider: "mock" }, {})).to.throw(/mock provider replays a transcript/);
    });

    it("lets a local OpenAI-compatible server go without a key", () => {
      expect(resolve({ provider: "openai" }, { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" })).to.deep.include({
        apiKey: null,
        baseUrl: "http://127.0.0.1:8080/v1",
      });
      expect(() => resolve({ provider: "openai" }, {})).to.throw(/set OPENAI_API_KEY/);
    });

    it("refuses a provider endpoint with credentials in it, without showing the password", () => {
      for (const [provider, variable] of [
        ["openai", "OPENAI_BASE_URL"],
        ["anthropic", "ANTHROPIC_BASE_URL"],
      ] as const) {
        let refused: unknown;
        try {
          resolve({ provider, apiKey: "k" }, { [variable]: "http://ada:ModelPw9876@127.0.0.1:8080/v1" });
        } catch (error) {
          refused = error;
        }
        expect(refused).to.be.instanceOf(LifecycleError);
        expect((refused as LifecycleError).code).to.equal("invalid_argument");
        expect((refused as Error).message).to.equal(
          `${variable} "http://***:***@127.0.0.1:8080/v1" has a user name or password in it, which obs does not send; give the key in ${provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"} (or --api-key) and the endpoint without them`,
        );
      }
      // A key given as the user name alone is not shown either.
      expect(() => resolve({ provider: "openai" }, { OPENAI_BASE_URL: "https://sk-live-abc@api.example/v1" }))
        .to.throw('OPENAI_BASE_URL "https://***@api.example/v1" has a user name or password in it')
        .with.property("message")
        .that.does.not.include("sk-live-abc");
      expect(() => resolve({ provider: "openai" }, { OPENAI_BASE_URL: "not a url" })).to.throw(
        'OPENAI_BASE_URL "not a url" is not an http(s) URL',
      );
    });

    it("prefers --api-key over the environment when both are given", () => {
      expect(resolve({ provider: "openai", apiKey: "flag" }, { OPENAI_API_KEY: "env" }).apiKey).to.equal("flag");
    });
  });
});
