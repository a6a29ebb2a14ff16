import { FORWARD_HEADER_FLAGS_ENV, type SettingFlags } from "../../shared/collector-settings.js";

/** How `obs monitor start --detach` runs its background obsd: the command line and the environment. */
export interface CollectorInvocation {
  /** obsd's arguments. */
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** `--name value`, or nothing for a flag not given; `--name=value` keeps a value such as `-x.sqlite` a value. */
function option(name: string, value: string | number | undefined): string[] {
  if (value === undefined || value === "") return [];
  const text = String(value);
  return text.startsWith("-") ? [`--${name}=${text}`] : [`--${name}`, text];
}

/**
 * The forwarding headers given as flags go to the collector in its environment, never on its
 * command line, where any user of the machine could read them (ps): in FORWARD_HEADER_FLAGS_ENV,
 * which obsd reads as the flags they were, so it reports their source truly.
 */
function headerEnvironment(env: NodeJS.ProcessEnv, headers: string[] | undefined): NodeJS.ProcessEnv {
  if (headers === undefined || headers.length === 0) return env;
  const encoded = headers.map((header) => {
    const at = header.indexOf("=");
    return at < 0 ? header : `${header.slice(0, at)}=${encodeURIComponent(header.slice(at + 1))}`;
  });
  return { ...env, [FORWARD_HEADER_FLAGS_ENV]: encoded.join(",") };
}

/**
 * The background collector for a start given `flags` in `env`: the flags the user gave, and no
 * others, in the same environment and folder. obsd then resolves every setting as this start
 * did, and reports its source truly: a value obs had read from the environment or taken as
 * the default, passed as a flag, would be reported as one.
 */
export function collectorInvocation(flags: SettingFlags, env: NodeJS.ProcessEnv): CollectorInvocation {
  return {
    args: [
      ...option("host", flags.host),
      ...option("port", flags.port),
      ...option("db", flags.db),
      ...switchOption("project-store", flags.projectStore),
      ...option("retention", flags.retention),
      ...option("max-db-size", flags.maxDbSize),
      ...option("max-body-size", flags.maxBodySize),
      ...switchOption("otlp-standard-ports", flags.otlpStandardPorts),
      ...(flags.forward ?? []).flatMap((url) => option("forward", url)),
      ...option("forward-protocol", flags.forwardProtocol),
    ],
    env: headerEnvironment(env, flags.forwardHeaders),
  };
}

/** A switch as given: on, turned off (over the environment), or not given. */
function switchOption(name: string, value: boolean | undefined): string[] {
  return value === undefined ? [] : [value ? `--${name}` : `--no-${name}`];
}
