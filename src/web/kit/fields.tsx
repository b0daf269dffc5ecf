/** Form fields with their errors, dates and notices: the pieces every page's forms are drawn with. */
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { formatDateTime, formatDay, type DateStyle } from './format.ts';
import type { FormErrors } from './input.ts';

interface FieldProps {
  name: string;
  label: string;
  value?: string | undefined;
  type?: 'text' | 'email' | 'password' | 'search' | 'number' | 'date' | 'url' | 'tel';
  errors?: FormErrors;
  hint?: ComponentChildren;
  required?: boolean;
  autocomplete?: string;
  autofocus?: boolean;
  placeholder?: string;
  inputmode?: 'numeric' | 'text' | 'email';
  pattern?: string;
  maxlength?: number;
  /** The id of a `<datalist>` of suggestions. */
  list?: string;
}

/** A labelled input with its hint and its errors (announced with the input through aria-describedby). */
export function Field(props: FieldProps) {
  const id = `f-${props.name}`;
  const errors = props.errors?.[props.name] ?? [];
  const describedBy = [props.hint ? `${id}-hint` : '', errors.length ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class={errors.length ? 'field has-error' : 'field'}>
      <label for={id}>{props.label}</label>
      <input
        {...({
          id,
          name: props.name,
          type: props.type ?? 'text',
          value: props.type === 'password' ? undefined : props.value,
          required: props.required,
          autocomplete: props.autocomplete,
          autofocus: props.autofocus,
          placeholder: props.placeholder,
          inputMode: props.inputmode,
          pattern: props.pattern,
          maxLength: props.maxlength,
          list: props.list,
          'aria-invalid': errors.length ? 'true' : undefined,
          'aria-describedby': describedBy || undefined,
          // Preact types each input type apart; the props above are valid for every type this takes.
        } as InputHTMLAttributes<HTMLInputElement>)}
      />
      {props.hint && (
        <div class="hint" id={`${id}-hint`}>
          {props.hint}
        </div>
      )}
      {errors.length > 0 && (
        <div class="error" id={`${id}-error`}>
          {errors.join(' ')}
        </div>
      )}
    </div>
  );
}

/** A field for a new password, with the rule the account service checks (at least 8 characters). */
export function NewPasswordField({
  label = 'Password',
  errors,
  autofocus,
  note,
}: {
  label?: string;
  errors?: FormErrors | undefined;
  autofocus?: boolean;
  /** Said after the rule (what happens once it is changed). */
  note?: string;
}) {
  return (
    <Field
      name="password"
      label={label}
      type="password"
      autocomplete="new-password"
      required
      autofocus={autofocus}
      errors={errors}
      hint={note ? `At least 8 characters. ${note}` : 'At least 8 characters.'}
    />
  );
}

/** A new account's username, email and password (first administrator, open sign-up). */
export function NewAccountFields({
  values,
  errors,
}: {
  values: { username: string; email: string };
  errors?: FormErrors | undefined;
}) {
  return (
    <>
      <Field
        name="username"
        label="Username"
        value={values.username}
        autocomplete="username"
        required
        autofocus
        errors={errors}
      />
      <Field
        name="email"
        label="Email"
        type="email"
        value={values.email}
        autocomplete="email"
        required
        errors={errors}
      />
      <NewPasswordField errors={errors} />
    </>
  );
}

/** A value to copy (a secret shown once, a link, a command): read-only, with a Copy button. */
export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  return (
    <div class="secret-once">
      <label for={id} class="visually-hidden">
        {label}
      </label>
      <input id={id} type="text" readonly value={value} />
      <button type="button" data-copy={id}>
        Copy
      </button>
    </div>
  );
}

interface SelectProps {
  name: string;
  label: string;
  value: string | undefined;
  options: readonly (string | { value: string; label: string })[];
  errors?: FormErrors;
  hint?: ComponentChildren;
}

export function SelectField(props: SelectProps) {
  const id = `f-${props.name}`;
  const errors = props.errors?.[props.name] ?? [];
  return (
    <div class={errors.length ? 'field has-error' : 'field'}>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} aria-invalid={errors.length ? 'true' : undefined}>
        {props.options.map((option) => {
          const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
          return (
            <option value={value} selected={value === props.value}>
              {label}
            </option>
          );
        })}
      </select>
      {props.hint && <div class="hint">{props.hint}</div>}
      {errors.length > 0 && <div class="error">{errors.join(' ')}</div>}
    </div>
  );
}

/** The errors that belong to no field (and, for a screen reader, a summary at the top of the form). */
export function FormProblems({ errors, fields = [] }: { errors: FormErrors | undefined; fields?: string[] }) {
  if (!errors) return null;
  const general = Object.entries(errors).filter(([key]) => !fields.includes(key));
  if (general.length === 0) return null;
  return (
    <div class="notice error" role="alert">
      {general.map(([key, messages]) => (
        <p>
          {key === '_form' || fields.length === 0 ? '' : `${key}: `}
          {messages.join(' ')}
        </p>
      ))}
    </div>
  );
}

export function Notice({
  kind = 'ok',
  children,
}: {
  kind?: 'ok' | 'error' | 'warn';
  children: ComponentChildren;
}) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** A date in the reader's time zone and format, with the exact instant in `datetime` and the tooltip. */
export function Time({
  date,
  style,
  withTime = true,
}: {
  date: Date | string | null | undefined;
  style: DateStyle;
  withTime?: boolean;
}) {
  if (!date) return <span class="muted">–</span>;
  const d = typeof date === 'string' ? new Date(date) : date;
  const iso = d.toISOString();
  return (
    <time datetime={iso} title={iso}>
      {withTime ? formatDateTime(d, style) : formatDay(d, style)}
    </time>
  );
}
