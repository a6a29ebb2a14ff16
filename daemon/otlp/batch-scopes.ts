import { createHash } from "node:crypto";
import { type DecodedAttributes, decodeAttributes, sortedAttributesJson } from "./any-value.js";
import { identityKey } from "./identity-key.js";
import { PayloadError } from "./payload-error.js";
import { type ResourceRecord, type ScopeRecord, UNKNOWN_SERVICE } from "./records.js";
import type { WireCodec } from "./wire-codec.js";

interface ResourceShape {
  attributes?: unknown;
  droppedAttributesCount?: unknown;
}

interface ScopeShape {
  name?: unknown;
  version?: unknown;
  attributes?: unknown;
  droppedAttributesCount?: unknown;
}

function sha1Hex(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

export function optionalString(value: unknown, path: string): string | null {
  if (value == null || value === "") return null;
  if (typeof value !== "string") throw new PayloadError(`${path}: expected a string`);
  return value;
}

/** Collects the distinct resources and scopes of one request; records refer to them by index. */
export class BatchScopes {
  readonly resources: ResourceRecord[] = [];
  readonly scopes: ScopeRecord[] = [];
  private readonly resourceByHash = new Map<string, number>();
  private readonly scopeByHash = new Map<string, number>();

  /** Registers a decoded resource; returns its index in `resources`. */
  resource(attributes: DecodedAttributes, dropped: number, schemaUrl: string | null): number {
    // Hashed from its attributes in key order: the same resource sent in another order is one
    // resource (a series' identity includes it). The JSON kept is as first sent.
    const hash = sha1Hex(identityKey([sortedAttributesJson(attributes.json), dropped, schemaUrl ?? ""]));
    const known = this.resourceByHash.get(hash);
    if (known !== undefined) return known;
    const serviceName = (JSON.parse(attributes.json) as Record<string, unknown>)["service.name"];
    this.resources.push({
      hash,
      serviceName: typeof serviceName === "string" && serviceName !== "" ? serviceName : UNKNOWN_SERVICE,
      attributes: attributes.json,
      droppedAttributesCount: dropped,
      schemaUrl,
    });
    this.resourceByHash.set(hash, this.resources.length - 1);
    return this.resources.length - 1;
  }

  /** Registers a decoded instrumentation scope; returns its index in `scopes`. */
  scope(
    name: string,
    version: string | null,
    attributes: DecodedAttributes,
    dropped: number,
    schemaUrl: string | null,
  ): number {
    const hash = sha1Hex(
      identityKey([name, version ?? "", sortedAttributesJson(attributes.json), dropped, schemaUrl ?? ""]),
    );
    const known = this.scopeByHash.get(hash);
    if (known !== undefined) return known;
    this.scopes.push({ hash, name, version, attributes: attributes.json, droppedAttributesCount: dropped, schemaUrl });
    this.scopeByHash.set(hash, this.scopes.length - 1);
    return this.scopes.length - 1;
  }
}

/** Resources and scopes of a request parsed into objects (OTLP/JSON), read through its codec. */
export class ParsedScopes extends BatchScopes {
  constructor(private readonly codec: WireCodec) {
    super();
  }

  /** `entryPath` names the entry (`resourceSpans[0]`): its schemaUrl sits beside its resource. */
  addResource(value: unknown, schemaUrlValue: unknown, entryPath: string): number {
    const path = `${entryPath}.resource`;
    const resource = (value ?? {}) as ResourceShape;
    if (typeof resource !== "object") throw new PayloadError(`${path}: expected an object`);
    const attributes = decodeAttributes(resource.attributes, this.codec, `${path}.attributes`);
    const dropped = this.codec.uint32(resource.droppedAttributesCount, `${path}.droppedAttributesCount`);
    return this.resource(attributes, dropped, optionalString(schemaUrlValue, `${entryPath}.schemaUrl`));
  }

  /** `entryPath` names the entry (`resourceSpans[0].scopeSpans[0]`): its schemaUrl sits beside its scope. */
  addScope(value: unknown, schemaUrlValue: unknown, entryPath: string): number {
    const path = `${entryPath}.scope`;
    const scope = (value ?? {}) as ScopeShape;
    if (typeof scope !== "object") throw new PayloadError(`${path}: expected an object`);
    const name = optionalString(scope.name, `${path}.name`) ?? "";
    const version = optionalString(scope.version, `${path}.version`);
    const attributes = decodeAttributes(scope.attributes, this.codec, `${path}.attributes`);
    const dropped = this.codec.uint32(scope.droppedAttributesCount, `${path}.droppedAttributesCount`);
    return this.scope(name, version, attributes, dropped, optionalString(schemaUrlValue, `${entryPath}.schemaUrl`));
  }
}

/** Enum fields are integers in OTLP; their proto names are accepted too. */
export function enumValue(
  value: unknown,
  names: Readonly<Record<string, number>>,
  codec: WireCodec,
  path: string,
): number {
  if (typeof value === "string" && !/^\d+$/.test(value)) {
    // Own keys only: "constructor" or "toString" are not enum names.
    if (!Object.hasOwn(names, value)) throw new PayloadError(`${path}: unknown value "${value}"`);
    return names[value] as number;
  }
  return codec.uint32(value, path);
}
