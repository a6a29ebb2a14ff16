import { expect } from "chai";
import { encodeResourceText, withResourceAttribute } from "../../../../client/setup/resource-attributes.js";

describe("OTEL_RESOURCE_ATTRIBUTES merge", () => {
  it("adds the attribute to an empty or absent list", () => {
    expect(withResourceAttribute(undefined, "service.namespace", "agentcli-agents")).to.equal(
      "service.namespace=agentcli-agents",
    );
    expect(withResourceAttribute("", "service.namespace", "agentcli-agents")).to.equal(
      "service.namespace=agentcli-agents",
    );
  });

  it("keeps the other entries exactly as written", () => {
    expect(
      withResourceAttribute("deployment.environment.name=dev, team=a%2Cb", "service.namespace", "agentcli-agents"),
    ).to.equal("deployment.environment.name=dev,team=a%2Cb,service.namespace=agentcli-agents");
  });

  it("replaces an existing value of the same key, encoded or not", () => {
    expect(withResourceAttribute("service.namespace=mine,x=1", "service.namespace", "agentcli-agents")).to.equal(
      "x=1,service.namespace=agentcli-agents",
    );
    expect(withResourceAttribute("service%2Enamespace=mine", "service.namespace", "agentcli-agents")).to.equal(
      "service.namespace=agentcli-agents",
    );
  });

  it("percent-encodes the characters the format reserves", () => {
    expect(encodeResourceText("a,b=c d%")).to.equal("a%2Cb%3Dc%20d%25");
    expect(withResourceAttribute(undefined, "k", "x,y")).to.equal("k=x%2Cy");
  });
});
