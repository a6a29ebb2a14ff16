import { expect } from "chai";
import { slug } from "../../../../client/checks/run/test-failure.js";

describe("slug: the folder a file's or test's screenshots and failure evidence go in", () => {
  it("keeps names that are already folder names as they read", () => {
    expect(slug("signs-in")).to.equal("signs-in");
    expect(slug("the-cart-total-counts-every-item")).to.equal("the-cart-total-counts-every-item");
    expect(slug("signs in")).to.match(/^signs-in-[0-9a-f]{8}$/);
    expect(slug("tests/login.obs.ts")).to.match(/^tests-login-obs-ts-[0-9a-f]{8}$/);
  });

  it("gives names that differ only in their separators their own folders", () => {
    for (const [a, b] of [
      ["log in", "log-in"],
      ["log in", "log.in"],
      ["a.b.obs.ts", "a/b.obs.ts"],
      ["a b.obs.ts", "a/b.obs.ts"],
    ]) {
      expect(slug(a as string), `${a} and ${b}`).to.not.equal(slug(b as string));
    }
    // A plain name cannot take the folder of a hashed one.
    const hashed = slug("log in");
    expect(slug(hashed)).to.not.equal(hashed);
  });

  it("gives two long names that share their first 60 characters two folders", () => {
    const start = "the checkout page shows the order summary with every line item and ";
    const a = slug(`${start}the tax`);
    const b = slug(`${start}the shipping`);
    expect(a).to.not.equal(b);
    expect(a.length).to.be.at.most(70);
    expect(a.startsWith("the-checkout-page-shows")).to.equal(true);
    expect(slug(`${start}the tax`)).to.equal(a);
  });

  it("gives names in other scripts their own folders, not all 'test'", () => {
    const names = ["ログインできる", "カートに追加できる", "войти в систему", "", "!!!"];
    const folders = names.map(slug);
    expect(new Set(folders).size).to.equal(names.length);
    for (const folder of folders) expect(folder).to.match(/^[a-z0-9-]+$/);
  });

  it("tells apart names that differ only in what the slug drops (case, punctuation)", () => {
    expect(slug("Signs in")).to.not.equal(slug("signs in"));
    expect(slug("adds a todo!")).to.not.equal(slug("adds a todo?"));
    expect(slug("a_b")).to.not.equal(slug("a-b"));
  });
});
