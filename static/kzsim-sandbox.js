// <kzsim-sandbox>: the Kafka ZK Sandbox as one element of a documentation page.
//
//   <script src="https://example.org/sandbox/kzsim-sandbox.js" defer></script>
//   <kzsim-sandbox scenario="controller-failover" panels="tree,brokers"
//                  from="305" to="360" autoplay lang="zh" height="480"></kzsim-sandbox>
//
// Attributes are the app's address parameters (docs/sharing.md): scenario,
// step, from, to, panels, lang, autoplay (present = on), tour; plus height
// (CSS length, default 520px), title, and src (the app's address; default:
// index.html beside this script). A scenario may also be written inside the
// element, as its text; it then travels in the address as #kzs.
//
// Each element is its own iframe of the app in its own shadow root, so any
// number of them on one page never share state, styles or timers; each
// plays only while it is on screen (the app's autoplay watches that).
(() => {
  'use strict';
  const here = document.currentScript && document.currentScript.src ? document.currentScript.src : location.href;
  const APP = new URL('index.html', here).href;
  const PARAMS = ['scenario', 'step', 'from', 'to', 'panels', 'lang', 'tour'];
  const FLAGS = ['autoplay'];

  /** base64url without padding of a string's UTF-8 bytes (the #kzs form). */
  function base64url(text) {
    const bytes = new TextEncoder().encode(text);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  /** The text written inside the element, with its common indentation removed. */
  function inlineScenario(element) {
    const lines = element.textContent.replace(/^\s*\n/, '').replace(/\s+$/, '').split('\n');
    const indents = lines.filter((l) => l.trim()).map((l) => l.match(/^\s*/)[0].length);
    const cut = indents.length ? Math.min(...indents) : 0;
    return lines.map((l) => l.slice(cut)).join('\n');
  }

  class KzsimSandbox extends HTMLElement {
    static get observedAttributes() {
      return [...PARAMS, ...FLAGS, 'src', 'height', 'title'];
    }

    connectedCallback() {
      this.render();
    }

    attributeChangedCallback() {
      if (this.isConnected) this.render();
    }

    /** The app's address for this element's options. */
    address() {
      const url = new URL(this.getAttribute('src') || APP, location.href);
      const query = new URLSearchParams({ embed: '1' });
      for (const name of PARAMS) if (this.hasAttribute(name)) query.set(name, this.getAttribute(name));
      for (const name of FLAGS) if (this.hasAttribute(name) && this.getAttribute(name) !== 'false') query.set(name, '1');
      const text = inlineScenario(this);
      url.search = query.toString();
      // An inline scenario wins over scenario=; the app reads both places.
      url.hash = text.trim() ? `kzs=${base64url(text)}` : '';
      return url.href;
    }

    render() {
      const root = this.shadowRoot || this.attachShadow({ mode: 'open' });
      const src = this.address();
      let frame = root.querySelector('iframe');
      if (!frame) {
        const style = document.createElement('style');
        style.textContent = ':host{display:block;margin:1rem 0}iframe{display:block;width:100%;border:1px solid #d0d5dd;border-radius:8px;background:#fff}';
        frame = document.createElement('iframe');
        frame.setAttribute('loading', 'lazy');
        frame.setAttribute('allow', 'clipboard-write');
        root.append(style, frame);
      }
      frame.title = this.getAttribute('title') || 'Kafka ZK Sandbox';
      const height = this.getAttribute('height') || '520px';
      frame.style.height = /^\d+$/.test(height) ? `${height}px` : height;
      if (frame.getAttribute('src') !== src) frame.setAttribute('src', src);
    }
  }

  if (!customElements.get('kzsim-sandbox')) customElements.define('kzsim-sandbox', KzsimSandbox);
})();
