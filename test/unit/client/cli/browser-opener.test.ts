import { expect } from "chai";
import { openerFor } from "../../../../client/cli/browser-opener.js";

const URL = "http://127.0.0.1:27686/ui/traces/0af7651916cd43dd8448eb211c80319c?span=b7ad6b7169203331";

describe("the browser opener of obs open", () => {
  it("is xdg-open on Linux with a display (X11 or Wayland), the URL one argument", () => {
    expect(openerFor(URL, "linux", { DISPLAY: ":0" })).to.deep.equal({ command: "xdg-open", args: [URL] });
    expect(openerFor(URL, "linux", { WAYLAND_DISPLAY: "wayland-0" })).to.deep.equal({
      command: "xdg-open",
      args: [URL],
    });
  });

  it("is open on macOS and cmd /c start on Windows, with start's empty title first", () => {
    expect(openerFor(URL, "darwin", {})).to.deep.equal({ command: "open", args: [URL] });
    expect(openerFor("http://h/?a=1&b=2", "win32", {})).to.deep.equal({
      command: "cmd",
      args: ["/c", "start", '""', "http://h/?a=1^&b=2"],
      verbatim: true,
    });
  });

  it("is none with --print, in CI, and on Linux without a display; CI=false is no CI", () => {
    expect(openerFor(URL, "darwin", {}, true)).to.deep.equal({ none: "asked to print" });
    expect(openerFor(URL, "linux", { DISPLAY: ":0", CI: "true" })).to.deep.equal({ none: "running in CI" });
    expect(openerFor(URL, "win32", { CI: "1" })).to.deep.equal({ none: "running in CI" });
    expect(openerFor(URL, "linux", {})).to.deep.equal({ none: "no display" });
    expect(openerFor(URL, "freebsd", { DISPLAY: "" })).to.deep.equal({ none: "no display" });
    expect(openerFor(URL, "linux", { DISPLAY: ":0", CI: "false" })).to.deep.equal({ command: "xdg-open", args: [URL] });
  });

  it("runs OBS_BROWSER_OPENER instead of the platform's program, under the same conditions", () => {
    const env = { OBS_BROWSER_OPENER: "/usr/bin/firefox" };
    expect(openerFor(URL, "linux", { ...env, DISPLAY: ":0" })).to.deep.equal({
      command: "/usr/bin/firefox",
      args: [URL],
    });
    expect(openerFor(URL, "linux", env)).to.deep.equal({ none: "no display" });
  });
});
