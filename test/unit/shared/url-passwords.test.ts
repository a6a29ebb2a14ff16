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

  it("hides the password of an address given without its scheme, as obs repeats it refusing it", () => {
    expect(hideUrlPasswords("--base-url u:pwDSECRET@127.0.0.1:27702: not an http: URL")).to.equal(
      "--base-url u:***@127.0.0.1:27702: not an http: URL",
    );
    expect(hideUrlPasswords("OBS_MONITOR_URL=u:s3cret@h:1")).to.equal("OBS_MONITOR_URL=u:***@h:1");
    expect(hideUrlPasswords('address "u:s3cret@h" refused')).to.equal('address "u:***@h" refused');
    expect(hideUrlPasswords("--forward :tok@h:80")).to.equal("--forward :***@h:80");
  });

  it("leaves text without credentials as it is", () => {
    for (const text of ["http://127.0.0.1:27686", "user@example.com wrote http://h/a@b", "a: b@c", "at 10:00 @ noon"])
      expect(hideUrlPasswords(text)).to.equal(text);
  });
});
