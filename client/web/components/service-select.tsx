/**
 * A labelled select of service names, "any" first. The current value stays a choice even when the list
 * lacks it: a link may name a service that the window no longer holds, and the select must
 * still show what the view is filtered by.
 */
export function ServiceSelect({
  value,
  names,
  anyLabel = "any",
  label,
  caption = "Service",
  onChange,
}: {
  value: string;
  names: readonly string[];
  anyLabel?: string;
  /** The select's accessible name when its visible label is not enough. */
  label?: string;
  /** The visible label above the select. */
  caption?: string;
  onChange: (service: string) => void;
}) {
  const choices = value && !names.includes(value) ? [value, ...names] : names;
  return (
    <label>
      {caption}
      <select
        name="service"
        aria-label={label}
        value={value}
        onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        <option value="">{anyLabel}</option>
        {choices.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
