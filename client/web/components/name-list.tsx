/**
 * Names (services, usually) as one comma-separated line, each isolated (`<bdi>`) so that a
 * direction override in one cannot reorder the commas or the names after it.
 */
import { Fragment } from "preact";

export function NameList({ names }: { names: readonly string[] }) {
  return (
    <>
      {names.map((name, i) => (
        <Fragment key={name}>
          {i > 0 && ", "}
          <bdi>{name}</bdi>
        </Fragment>
      ))}
    </>
  );
}
