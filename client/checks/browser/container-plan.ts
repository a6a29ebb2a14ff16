/**
 * `--containerized`: the docker commands that give the selected engine a warm container, one
 * per engine, kept running between runs and reused. Pure: the adapter (browser-container.ts)
 * runs these commands.
 *
 * The container publishes its WebDriver port on 127.0.0.1 only (a browser reachable from the
 * network would let anyone drive it), and reaches the host's servers as host.docker.internal,
 * so URLs of this machine's loopback are rewritten to that name.
 */
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import type { Engine } from "../config/config-model.js";

/** The WebDriver port inside the images (Selenium's standalone images listen on 4444). */
export const CONTAINER_WEBDRIVER_PORT = 4444;
export const HOST_FROM_CONTAINER = "host.docker.internal";
export const DEFAULT_IMAGES: Partial<Record<Engine, string>> = { engine_a: "selenium/standalone-chromium:latest" };
export const ENGINE_LABEL = "obs.browser.engine";

export interface ContainerPlan {
  engine: Engine;
  image: string;
  name: string;
  /** The WebDriver browserName the image serves ("" lets the server choose). */
  browserName: string;
  /** `docker info`: fails when no container engine is reachable. */
  probe: string[];
  /** `docker inspect`: prints "true" when the warm container is running. */
  inspect: string[];
  /** `docker rm -f`: clears a stopped container of that name before a fresh start. */
  remove: string[];
  run: string[];
  /** `docker port`: where the WebDriver port is published on this machine. */
  port: string[];
}

/** The image of an engine: OBS_CONTAINER_IMAGE_ENGINE_A / _ENGINE_D, else the default; engine_d has none. */
export function containerImage(engine: Engine, env: NodeJS.ProcessEnv): string {
  if (engine !== "engine_a" && engine !== "engine_d") {
    throw new LifecycleError(
      "invalid_argument",
      `--containerized runs engine_a or engine_d, not ${engine}; drop --containerized to run ${engine} on this machine`,
    );
  }
  const variable = `OBS_CONTAINER_IMAGE_${engine.toUpperCase()}`;
  const image = env[variable] || DEFAULT_IMAGES[engine];
  if (!image) {
    throw new LifecycleError(
      "invalid_argument",
      `engine_d is experimental and has no default image: set ${variable} to an image that serves WebDriver on port ${CONTAINER_WEBDRIVER_PORT}`,
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/.test(image)) {
    throw new LifecycleError("invalid_argument", `${variable} "${image}" is not a container image reference`);
  }
  return image;
}

export function containerPlan(engine: Engine, image: string, docker = "docker"): ContainerPlan {
  const name = `obs-browser-${engine.replace("_", "-")}`;
  return {
    engine,
    image,
    name,
    browserName: engine === "engine_a" ? "chrome" : "",
    probe: [docker, "info", "--format", "{{.ServerVersion}}"],
    inspect: [docker, "inspect", "--format", "{{.State.Running}}", name],
    remove: [docker, "rm", "--force", name],
    run: [
      docker,
      "run",
      "--detach",
      "--name",
      name,
      "--label",
      `${ENGINE_LABEL}=${engine}`,
      "--shm-size",
      "2g",
      "--add-host",
      `${HOST_FROM_CONTAINER}:host-gateway`,
      "--publish",
      `127.0.0.1::${CONTAINER_WEBDRIVER_PORT}`,
      image,
    ],
    port: [docker, "port", name, `${CONTAINER_WEBDRIVER_PORT}/tcp`],
  };
}

/** `docker port` prints one "address:port" line per binding; the IPv4 loopback one is used. */
export function publishedWebDriverUrl(output: string): string | null {
  for (const line of output.split("\n")) {
    const match = /^(127\.0\.0\.1|0\.0\.0\.0):(\d+)$/.exec(line.trim());
    if (match) return `http://127.0.0.1:${match[2]}/`;
  }
  return null;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A URL on this machine's loopback, as the container reaches it; any other URL is unchanged. */
export function urlFromContainer(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (!LOOPBACK_HOSTS.has(parsed.hostname)) return url;
  parsed.hostname = HOST_FROM_CONTAINER;
  return parsed.href;
}
