// Slice profiles: the merchant's printer, material and global-settings profiles (forms with every
// request parameter), the shipped global profiles read-only, one default per kind, and "try it".
import { html, nothing } from 'lit';
import { confirmAction } from '../components/confirm.ts';
import { badge, pageHeader } from '../components/page-header.ts';
import { emptyView, errorView, renderLoad } from '../components/states.ts';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { allFields, formatField, setShopCurrency, unitText } from '../lib/profile-rules.ts';
import { KIND_LABEL, KINDS, listProfiles } from '../lib/profiles.ts';
import { href, navigate, type Route } from '../lib/router.ts';
import type { Profile, ProfileKind } from '../lib/types.ts';
import '../components/profile-form.ts';
import '../components/try-quote.ts';

type AllProfiles = Record<ProfileKind, Profile[]>;

const KIND_HELP: Record<ProfileKind, string> = {
  printer:
    'Your machine: build volume, nozzle, speeds, layers, acceleration, temperature limits and running cost. Your default printer applies to every quote.',
  material:
    'Per material: density, temperatures, cooling, retraction and pricing. Requests choose a material by name (filament_type); your default material applies when they name none.',
  global:
    'Pricing for every quote: your shop currency (every amount in your profiles is in it), tax, fixed fee, energy cost, a minimum price per part, the exchange rates of other currencies quotes may ask for; and the default layer heights.',
};

function inheritedFor(kind: ProfileKind, all: AllProfiles, name: string): Record<string, unknown> {
  const globalOf = (k: ProfileKind) => all[k].filter((p) => p.scope === 'global');
  const defaultOf = (k: ProfileKind) => globalOf(k).find((p) => p.is_default)?.settings ?? {};
  if (kind === 'material') {
    const same = globalOf('material').find((p) => p.name.toLowerCase() === name.toLowerCase());
    if (same) return same.settings;
    // Prices are never borrowed from another material: a new material has none until it sets one.
    const { price_per_kg: _kg, price_per_gram: _g, ...rest } = defaultOf('material');
    return rest;
  }
  if (kind === 'global') {
    const printer = defaultOf('printer');
    return {
      ...defaultOf('global'),
      layer_height: printer.layer_height,
      min_layer_height: printer.min_layer_height,
      max_layer_height: printer.max_layer_height,
    };
  }
  return defaultOf('printer');
}

export class ProfilesPage extends AppElement {
  static override properties = { route: { attribute: false }, notice: { state: true } };
  declare route: Route;
  declare notice: string;
  private all = new Loader<AllProfiles>(this, async () => {
    const [printer = [], material = [], global = []] = await Promise.all(KINDS.map(listProfiles));
    // The shop currency is the default global-settings profile's: the merchant's own, else the shipped one.
    const current =
      global.find((p) => p.scope === 'account' && p.is_default) ??
      global.find((p) => p.scope === 'global' && p.is_default);
    setShopCurrency(typeof current?.settings.currency === 'string' ? current.settings.currency : undefined);
    return { printer, material, global };
  });

  constructor() {
    super();
    this.notice = '';
  }

  /** Notices belong to the page they were given for: moving elsewhere in the profiles clears them. */
  private noticeHash = '';

  private say(message: string, forHash = location.hash) {
    this.notice = message;
    this.noticeHash = forHash;
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('route') && this.notice && location.hash !== this.noticeHash) this.notice = '';
  }

  private get kind(): ProfileKind {
    const k = this.route?.params[0] as ProfileKind;
    return KINDS.includes(k) ? k : 'material';
  }

  private get names(): Map<string, Profile> {
    const d = this.all.data;
    return new Map(d ? KINDS.flatMap((k) => d[k]).map((p) => [p.profile_id, p]) : []);
  }

  private async saved(p: Profile) {
    this.say(`Profile "${p.name}" saved.`, href(['profiles', p.kind, p.profile_id]));
    await this.all.reload();
    navigate(['profiles', p.kind, p.profile_id]);
  }

  private async deleteProfile(p: Profile) {
    const ok = await confirmAction({
      title: `Delete "${p.name}"?`,
      body: 'Quotes then resolve these settings from your other profiles and the global ones. Past quotes keep their values.',
      confirmLabel: 'Delete profile',
    });
    if (!ok) return;
    try {
      await call(
        api.DELETE('/v2/profiles/{kind}/{profile_id}', {
          params: { path: { kind: p.kind, profile_id: p.profile_id } },
        }),
      );
      this.say(`Profile "${p.name}" deleted.`, href(['profiles', p.kind]));
      await this.all.reload();
      navigate(['profiles', p.kind]);
    } catch (err) {
      this.say(`Could not delete "${p.name}": ${toApiError(err).message}`);
    }
  }

  private async makeDefault(p: Profile) {
    try {
      await call(
        api.PUT('/v2/profiles/{kind}/{profile_id}', {
          params: { path: { kind: p.kind, profile_id: p.profile_id } },
          // The profile's own settings, as the server answered them.
          body: { name: p.name, is_default: true, settings: p.settings as Record<string, never> },
        }),
      );
      this.say(`"${p.name}" is now your default ${KIND_LABEL[p.kind].toLowerCase()} profile.`);
      await this.all.reload();
    } catch (err) {
      this.say(`Could not change the default: ${toApiError(err).message}`);
    }
  }

  protected override render() {
    const kind = this.kind;
    return html`${pageHeader('Slice profiles', 'The settings quotes are sliced and priced with: request values first, then your default profile of each kind, then the global profile.')}
      <nav class="tabs" aria-label="Profile kinds">
        ${KINDS.map((k) => html`<a href=${href(['profiles', k])} aria-current=${k === kind ? 'page' : nothing}>${KIND_LABEL[k]}</a>`)}
      </nav>
      <div role="status">${this.notice ? html`<p class="alert alert-info">${this.notice}</p>` : nothing}</div>
      ${renderLoad(
        this.all.state,
        'profiles',
        (all) => this.body(kind, all),
        () => this.all.reload(),
      )}`;
  }

  private body(kind: ProfileKind, all: AllProfiles) {
    const id = this.route?.params[1];
    if (!id) return this.list(kind, all);
    if (id === 'new') {
      const from = all[kind].find((p) => p.profile_id === this.route.query.get('from')) ?? null;
      return html`<section class="panel" aria-labelledby="pf-h"><h2 id="pf-h">New ${KIND_LABEL[kind].toLowerCase()} profile${from ? ` from “${from.name}”` : ''}</h2>
        <sq-profile-form .kind=${kind} .template=${from} .inherited=${inheritedFor(kind, all, from?.name ?? '')} @sq-saved=${(e: CustomEvent<Profile>) => this.saved(e.detail)}></sq-profile-form></section>`;
    }
    const profile = all[kind].find((p) => p.profile_id === id);
    if (!profile) return errorView(new ApiError(404, 'not_found', `No ${kind} profile ${id} exists in this account.`));
    return html`${profile.scope === 'global' ? this.readOnly(profile) : this.editor(profile, all)}
      <sq-try-quote .profile=${profile} .profiles=${this.names}></sq-try-quote>`;
  }

  private editor(p: Profile, all: AllProfiles) {
    return html`<section class="panel" aria-labelledby="pf-h">
      <div class="panel-head"><h2 id="pf-h">${p.name} ${p.is_default ? badge('Default', 'ok') : nothing}</h2>
        <button type="button" class="btn btn-danger-quiet" @click=${() => this.deleteProfile(p)}>Delete profile</button></div>
      <sq-profile-form .kind=${p.kind} .profile=${p} .inherited=${inheritedFor(p.kind, all, p.name)} @sq-saved=${(e: CustomEvent<Profile>) => this.saved(e.detail)}></sq-profile-form>
    </section>`;
  }

  private readOnly(p: Profile) {
    return html`<section class="panel" aria-labelledby="pf-h">
      <div class="panel-head"><h2 id="pf-h">${p.name} ${badge('Global, read-only')} ${p.is_default ? badge('Global default', 'info') : nothing}</h2>
        <a class="btn" href=${href(['profiles', p.kind, 'new'], { from: p.profile_id })}>Make my own copy</a></div>
      <p class="muted">Global profiles ship with slicequote and are updated with it. To change a value, make your own copy${p.kind === 'material' ? ' (a material of yours with the same name takes precedence)' : ' and mark it default'}.</p>
      <div class="table-wrap"><table class="table table-compact">
        <caption class="visually-hidden">Settings of ${p.name}</caption>
        <thead><tr><th scope="col">Setting</th><th scope="col">Value</th></tr></thead>
        <tbody>${allFields(p.kind).map((d) => {
          const unit = unitText(d);
          const v = formatField(d, p.settings[d.name]);
          return html`<tr><th scope="row">${d.label} <code class="muted small">${d.name}</code></th><td>${v ? `${v}${unit ? ` ${unit}` : ''}` : html`<span class="muted">Not set</span>`}</td></tr>`;
        })}</tbody>
      </table></div>
    </section>`;
  }

  private list(kind: ProfileKind, all: AllProfiles) {
    const own = all[kind].filter((p) => p.scope === 'account');
    const shipped = all[kind].filter((p) => p.scope === 'global');
    return html`<p class="muted">${KIND_HELP[kind]}</p>
      <section class="panel" aria-labelledby="own-h">
        <div class="panel-head"><h2 id="own-h">Your ${KIND_LABEL[kind].toLowerCase()} profiles</h2>
          <a class="btn btn-primary" href=${href(['profiles', kind, 'new'])}>New ${KIND_LABEL[kind].toLowerCase()} profile</a></div>
        ${own.length ? this.table(own, true) : emptyView(`No ${KIND_LABEL[kind].toLowerCase()} profiles of your own`, 'Quotes use the global profiles below until you add one.')}
      </section>
      <section class="panel" aria-labelledby="global-h">
        <h2 id="global-h">${kind === 'global' ? 'Shipped global settings profiles' : `Global ${KIND_LABEL[kind].toLowerCase()} profiles`} <span class="muted small">(read-only)</span></h2>
        ${shipped.length ? this.table(shipped, false) : emptyView('No global profiles of this kind', 'The built-in defaults apply.')}
      </section>`;
  }

  private table(list: Profile[], own: boolean) {
    return html`<div class="table-wrap"><table class="table">
      <caption class="visually-hidden">${own ? 'Your profiles' : 'Global profiles'}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Default</th><th scope="col">Updated</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${list.map(
        (p) => html`<tr>
          <td><a href=${href(['profiles', p.kind, p.profile_id])}>${p.name}</a></td>
          <td>${p.is_default ? badge('Default', 'ok') : own ? html`<button type="button" class="btn btn-small" @click=${() => this.makeDefault(p)} aria-label="Make ${p.name} the default">Make default</button>` : html`<span class="muted">—</span>`}</td>
          <td>${dateTime(p.updated_at)}</td>
          <td class="actions"><a class="btn btn-small" href=${href(['profiles', p.kind, p.profile_id])} aria-label="${own ? 'Edit' : 'View'} ${p.name}">${own ? 'Edit' : 'View'}</a></td>
        </tr>`,
      )}</tbody>
    </table></div>`;
  }
}
customElements.define('sq-profiles-page', ProfilesPage);
