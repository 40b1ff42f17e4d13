// The form of one slice profile: every parameter of its kind, validated as you type with the
// API's own rules; fields left empty are not stored and inherit from the global profile.
import { html, nothing } from 'lit';
import { type ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { emit } from '../lib/events.ts';
import { toApiError } from '../lib/loader.ts';
import {
  allFields,
  fieldGroups,
  fieldValue,
  formatField,
  PROFILE_NAME_MAX,
  parseField,
  validateProfile,
} from '../lib/profile-rules.ts';
import { KIND_LABEL } from '../lib/profiles.ts';
import type { Profile, ProfileKind } from '../lib/types.ts';
import { settingField } from './setting-field.ts';
import { formError } from './states.ts';

export class ProfileForm extends AppElement {
  static override properties = {
    kind: {},
    profile: { attribute: false },
    template: { attribute: false },
    inherited: { attribute: false },
    name: { state: true },
    isDefault: { state: true },
    values: { state: true },
    touched: { state: true },
    submitted: { state: true },
    busy: { state: true },
    serverError: { state: true },
  };
  declare kind: ProfileKind;
  /** The profile being edited; null for a new one. */
  declare profile: Profile | null;
  /** Values to start a new profile from (duplicating a global profile). */
  declare template: Profile | null;
  declare inherited: Record<string, unknown>;
  declare name: string;
  declare isDefault: boolean;
  declare values: Record<string, string>;
  declare touched: Set<string>;
  declare submitted: boolean;
  declare busy: boolean;
  declare serverError: ApiError | null;

  constructor() {
    super();
    this.kind = 'material';
    this.profile = null;
    this.template = null;
    this.inherited = {};
    this.name = '';
    this.isDefault = false;
    this.values = {};
    this.touched = new Set();
    this.submitted = false;
    this.busy = false;
    this.serverError = null;
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('profile') || changed.has('template') || changed.has('kind')) this.fill();
  }

  /** Loads the form from the profile (or the template), as text. */
  private fill() {
    const source = this.profile ?? this.template;
    this.name =
      this.profile?.name ??
      (this.template ? (this.kind === 'material' ? this.template.name : `${this.template.name} (copy)`) : '');
    this.isDefault = this.profile?.is_default ?? false;
    const values: Record<string, string> = {};
    for (const def of allFields(this.kind))
      values[def.name] = formatField(def, fieldValue(def, source?.settings ?? {}));
    this.values = values;
    this.touched = new Set();
    this.submitted = false;
    this.serverError = null;
  }

  private settings(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const def of allFields(this.kind)) {
      const v = parseField(def, this.values[def.name] ?? '');
      if (v !== undefined) out[def.name] = v;
    }
    return out;
  }

  /** Problems by form field name ('name', or the setting's name). */
  private problems(): Map<string, string> {
    const issues = validateProfile(this.kind, this.name, this.settings());
    const server = this.serverError?.fields ?? [];
    const map = new Map<string, string>();
    for (const i of [...issues, ...server]) {
      const key = i.field.replace(/^settings\./, '');
      if (!map.has(key)) map.set(key, i.message);
    }
    return map;
  }

  private onInput = (field: string, value: string) => {
    this.values = { ...this.values, [field]: value };
    this.touched = new Set(this.touched).add(field);
    this.serverError = null;
  };

  private onName = (e: Event) => {
    this.name = (e.target as HTMLInputElement).value;
    this.touched = new Set(this.touched).add('name');
    this.serverError = null;
  };

  private async submit(e: SubmitEvent) {
    e.preventDefault();
    this.submitted = true;
    const problems = this.problems();
    if (problems.size) {
      await this.updateComplete;
      const first = [...problems.keys()][0];
      this.querySelector<HTMLElement>(`#pf-${first}`)?.focus();
      return;
    }
    this.busy = true;
    try {
      // The contract leaves the settings' fields to the catalogue (shared/settings.ts), which the form checked.
      const settings = this.settings() as Record<string, never>;
      const body = { name: this.name.trim(), is_default: this.isDefault, settings };
      const saved = this.profile
        ? await call(
            api.PUT('/v2/profiles/{kind}/{profile_id}', {
              params: { path: { kind: this.kind, profile_id: this.profile.profile_id } },
              body,
            }),
          )
        : await call(api.POST('/v2/profiles/{kind}', { params: { path: { kind: this.kind } }, body }));
      emit(this, 'sq-saved', saved);
    } catch (err) {
      this.serverError = toApiError(err);
    } finally {
      this.busy = false;
    }
  }

  private show(problems: Map<string, string>, field: string): string | undefined {
    return this.submitted || this.touched.has(field) ? problems.get(field) : undefined;
  }

  protected override render() {
    const problems = this.problems();
    const nameError = this.show(problems, 'name');
    const count = this.submitted ? problems.size : 0;
    return html`<form class="profile-form" @submit=${this.submit} novalidate aria-label="${KIND_LABEL[this.kind]} profile">
      <div class="form-top">
        <div class="field ${nameError ? 'field-invalid' : ''}">
          <label for="pf-name">${this.kind === 'material' ? 'Material name (the filament_type requests use)' : 'Profile name'}</label>
          <input id="pf-name" name="name" .value=${this.name} maxlength=${PROFILE_NAME_MAX} autocomplete="off"
            aria-invalid=${nameError ? 'true' : 'false'} aria-describedby=${nameError ? 'pf-name-error' : nothing}
            @input=${this.onName} />
          ${nameError ? html`<p class="field-error" id="pf-name-error">Name ${nameError}</p>` : nothing}
        </div>
        <div class="field field-check">
          <input id="pf-default" type="checkbox" .checked=${this.isDefault} @change=${(e: Event) => (this.isDefault = (e.target as HTMLInputElement).checked)} />
          <label for="pf-default">Use as my default ${KIND_LABEL[this.kind].toLowerCase()} profile</label>
        </div>
      </div>
      <p class="muted small">Leave a field empty to inherit it (the placeholder shows the value that then applies). One default per kind: choosing this one replaces the previous default.</p>
      ${fieldGroups(this.kind).map(
        (g) => html`<fieldset class="field-group"><legend>${g.title}</legend><div class="field-grid">
          ${g.fields.map((def) =>
            settingField(
              {
                def,
                value: this.values[def.name] ?? '',
                inherited: formatField(def, fieldValue(def, this.inherited)),
                error: this.show(problems, def.name),
                readonly: false,
                onInput: this.onInput,
              },
              'pf',
            ),
          )}
        </div></fieldset>`,
      )}
      <div class="form-actions">
        <div role="status" class="form-summary">${count ? html`<p class="alert alert-error">${count === 1 ? 'One field needs' : `${count} fields need`} attention before saving.</p>` : nothing}</div>
        ${this.serverError && !this.serverError.fields.length ? formError(this.serverError) : nothing}
        <button type="submit" class="btn btn-primary" ?disabled=${this.busy}>${this.busy ? 'Saving…' : this.profile ? 'Save changes' : 'Create profile'}</button>
      </div>
    </form>`;
  }
}
customElements.define('sq-profile-form', ProfileForm);
