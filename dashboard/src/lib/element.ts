// Base class of every dashboard element: rendered in the light DOM, so one stylesheet styles the whole
// app and labels, inputs, landmarks and focus behave as in a plain page (for assistive tech and for axe).
import { LitElement } from 'lit';

export class AppElement extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    // Drop server-rendered placeholder content (index.html's "Loading…") before the first render.
    this.replaceChildren();
    return this;
  }
}
