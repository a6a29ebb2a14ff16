import { readFileSync } from "node:fs";
import { packagePath } from "../../shared/package-root.js";

/** The OTLP sample payloads from the OTLP specification, in `../shared/fixtures/otlp/`. */
export function otlpFixture(name: "trace" | "logs"): string {
  const candidates = [
    packagePath("..", "shared", "fixtures", "otlp", `${name}.json`),
    packagePath("test", "fixtures", "otlp", `${name}.json`),
  ];
  for (const path of candidates) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      // next candidate
    }
  }
  throw new Error(`OTLP fixture ${name}.json not found in ${candidates.join(" or ")}`);
}

/** The fixture as an object, to modify per test. */
export function otlpFixtureObject(name: "trace" | "logs"): Record<string, any> {
  return JSON.parse(otlpFixture(name));
}
