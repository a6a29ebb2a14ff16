import { expect } from "chai";
import { hideUrlPasswords } from "../../../shared/url-passwords.js";

describe("URL passwords hidden in text obs repeats", () => {
  it("shows every URL's password as ***, whatever characters it holds", () => {
    expect(hideUrlPasswords("https://alice:s3cret@h:4318/v1")).to.equal("https://alice:***@h:4318/v1");
    expect(hideUrlPasswords("http://:tok%40en@h")).to.equal("http://:***@h");
    expect(hideUrlPasswords("http://u:p:a#?ss@h")).to.equal("http://u:***@h");
    // Characters a URL parser would read apart, in a value refused for them: none of it shown.
    expect(hideUrlPasswords("http://u:p@ss@host")).not.to.include("ss@host").and.not.to.include("p@");
    expect(hideUrlPasswords("https://u:pa/ss@h")).not.to.include("pa/ss");
    expect(hideUrlPasswords("--forward ftp://u:secret@h and http://v:other@k")).to.equal(
      "--forward ftp://u:***@h and http://v:***@k",
    );
  });

  it("leaves text without credentials as it is", () => {
    for (const text of ["http://127.0.0.1:27686", "user@example.com wrote http://h/a@b", "a: b@c"])
      expect(hideUrlPasswords(text)).to.equal(text);
  });
});
