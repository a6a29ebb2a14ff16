import { existsSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { packagePath } from "../../../shared/package-root.js";

/** The documents whose file names readers follow to the code. */
const DOCUMENTS = ["README.md", "docs/api.md", "docs/architecture.md"];
/** A path into the checkout: a top-level source folder, then a name. */
const PATH = /\b(?:daemon|client|shared|bench|test|docs|scripts|native|schemas|bin)\/[\w./-]*\w/g;

describe("documentation", () => {
  it("names only files and folders that exist in the checkout", () => {
    const missing = DOCUMENTS.flatMap((document) =>
      [...readFileSync(packagePath(document), "utf8").matchAll(PATH)]
        .map(([path]) => path)
        .filter((path) => !existsSync(packagePath(path)))
        .map((path) => `${document}: ${path}`),
    );
    expect(missing).to.deep.equal([]);
  });
});
