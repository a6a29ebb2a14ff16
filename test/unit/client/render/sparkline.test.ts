import { expect } from "chai";
import {
  ASCII_LEVELS,
  BLOCK_LEVELS,
  blockCharactersShown,
  columnsOf,
  sparkline,
} from "../../../../client/render/sparkline.js";

describe("sparkline", () => {
  it("draws the lowest value at the lowest block and the highest at the highest, linearly between", () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7], { width: 40 })).to.equal("▁▂▃▄▅▆▇█");
    // 10 of 0..20 is halfway: level round(0.5 * 7) = 4, the fifth block.
    expect(sparkline([0, 10, 20], { width: 40 })).to.equal("▁▅█");
  });

  it("shows the shape, not the size: an offset or a factor draws the same line", () => {
    const line = sparkline([3, 9, 6], { width: 10 });
    expect(sparkline([1003, 1009, 1006], { width: 10 })).to.equal(line);
    expect(sparkline([30, 90, 60], { width: 10 })).to.equal(line);
  });

  it("leaves a gap for a missing value instead of drawing a zero", () => {
    expect(sparkline([1, null, 3, Number.NaN, 2], { width: 10 })).to.equal("▁ █ ▅");
    expect(sparkline([null, null], { width: 10 })).to.equal("  ");
    expect(sparkline([], { width: 10 })).to.equal("");
  });

  it("draws a constant series flat at the middle level, whatever its value", () => {
    expect(sparkline([5, 5, null, 5], { width: 10 })).to.equal("▄▄ ▄");
    expect(sparkline([0, 0], { width: 10 })).to.equal("▄▄");
    expect(sparkline([42], { width: 10, ascii: true })).to.equal("-");
  });

  it("scales negative values like any other", () => {
    expect(sparkline([-10, 0, 10], { width: 10 })).to.equal("▁▅█");
    expect(sparkline([-3, -1, -2], { width: 10 })).to.equal(sparkline([1, 3, 2], { width: 10 }));
  });

  it("fits a long series into the width, each column the mean of the values it covers", () => {
    expect(columnsOf([1, 3, 5, 7, 9, 11], 3)).to.deep.equal([2, 6, 10]);
    expect(columnsOf([1, null, null, null, 4, 6], 3)).to.deep.equal([1, null, 5]);
    // Uneven: 5 values in 2 columns split 2 + 3.
    expect(columnsOf([1, 1, 2, 2, 2], 2)).to.deep.equal([1, 2]);
    const long = Array.from({ length: 500 }, (_, i) => i);
    const line = sparkline(long, { width: 40 });
    expect([...line]).to.have.length(40);
    expect(line.startsWith("▁")).to.equal(true);
    expect(line.endsWith("█")).to.equal(true);
    // A series shorter than the width is not stretched.
    expect(sparkline([1, 2], { width: 40 })).to.have.length(2);
  });

  it("draws values near the largest double, one character a value", () => {
    expect(sparkline([1e308, -1e308, 0, 1e308], { width: 40 })).to.equal("█▁▅█");
    expect(sparkline([1e308, 1e308, 1e308, 1e308], { width: 2 })).to.equal("▄▄");
    // And the smallest: halved, they would be 0.
    expect(sparkline([0, 5e-324, 0, 5e-324], { width: 40 })).to.equal("▁█▁█");
  });

  it("draws with plain ASCII when asked, gaps still blank", () => {
    expect(sparkline([0, 1, 2, 3, 4], { width: 10, ascii: true })).to.equal("_.-=#");
    expect(sparkline([0, null, 4], { width: 10, ascii: true })).to.equal("_ #");
    for (const line of [sparkline([-1, 7, 2, null, 9], { width: 10, ascii: true })]) {
      expect(line).to.match(/^[ -~]*$/);
    }
    expect([...ASCII_LEVELS]).to.have.length(5);
    expect([...BLOCK_LEVELS]).to.have.length(8);
  });
});

describe("whether the terminal shows the block characters", () => {
  it("follows the locale that sets the character type: LC_ALL, then LC_CTYPE, then LANG", () => {
    expect(blockCharactersShown({ LANG: "en_US.UTF-8" }, "linux")).to.equal(true);
    expect(blockCharactersShown({ LANG: "C.utf8" }, "linux")).to.equal(true);
    expect(blockCharactersShown({ LANG: "C" }, "linux")).to.equal(false);
    expect(blockCharactersShown({ LC_ALL: "POSIX", LANG: "en_US.UTF-8" }, "linux")).to.equal(false);
    expect(blockCharactersShown({ LC_CTYPE: "en_US.UTF-8", LANG: "C" }, "linux")).to.equal(true);
    expect(blockCharactersShown({ LC_ALL: "", LC_CTYPE: "de_DE.ISO-8859-1", LANG: "en_US.UTF-8" }, "linux")).to.equal(
      false,
    );
  });

  it("says no for TERM=dumb, and for no locale at all outside Windows", () => {
    expect(blockCharactersShown({ TERM: "dumb", LANG: "en_US.UTF-8" }, "linux")).to.equal(false);
    expect(blockCharactersShown({}, "linux")).to.equal(false);
    expect(blockCharactersShown({}, "darwin")).to.equal(false);
    expect(blockCharactersShown({}, "win32")).to.equal(true);
  });
});
