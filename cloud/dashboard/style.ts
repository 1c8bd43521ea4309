/**
 * The dashboard's stylesheet, served from `/dashboard/style.css` (the CSP
 * allows no inline style). Colours meet WCAG AA contrast. Usable from 390 px
 * wide without scrolling the page sideways: wide tables scroll inside their
 * own box, their action column held at the right edge; times never wrap; long
 * ids and secrets break in text.
 *
 * @module
 */

/** The stylesheet. */
export const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #d0d7de; --accent: #0b5cad;
  --bad: #a4161a; --warn: #8a5300; --ok: #1a6b2f; --bg: #f6f8fa; font-family: system-ui, sans-serif; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45; }
a { color: var(--accent); }
header { background: var(--ink); color: #fff; padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: 1rem;
  align-items: center; }
header a { color: #fff; }
header .brand { font-weight: 700; margin-right: auto; }
header form { margin: 0; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: .5rem 1rem;
  background: var(--bg); border-bottom: 1px solid var(--line); }
nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
main { padding: 1rem; max-width: 96rem; box-sizing: border-box; }
p, dd, li, h1, h2, .notice, .error, .success { overflow-wrap: anywhere; }
time > span { white-space: nowrap; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: .35rem .5rem; vertical-align: top; }
th { background: var(--bg); }
.table-box { overflow-x: auto; max-width: 100%; margin: .5rem 0 1rem; }
.table-box > table { margin: 0; }
.table-box:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table:has(td > form.inline, td.actions) tr > :last-child { position: sticky; right: 0; background: #fff;
  box-shadow: -1px 0 0 var(--line); }
table:has(td > form.inline, td.actions) tr > th:last-child { background: var(--bg); }
td.actions a { display: inline-block; margin: 0 .5rem .25rem 0; }
@media (max-width: 64rem) {
  /* A table outside a focusable box scrolls itself when a keyboard can reach into it (a link, a button), else its
     its first column (a label, an id) wraps anywhere so it fits. */
  :not(.table-box) > table:has(a, button, input) { display: block; overflow-x: auto; max-width: 100%; }
  :not(.table-box) > table:not(:has(a, button, input)) td:first-child { overflow-wrap: anywhere; }
  th, td { padding: .3rem .35rem; }
  figure { margin: 1rem 0; }
  main { padding: .75rem; }
}
code, pre { font-family: ui-monospace, monospace; font-size: .85rem; }
pre { background: var(--bg); padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
details.payload summary { white-space: nowrap; cursor: pointer; }
details.payload pre { min-width: 16rem; max-width: 40rem; }
form.inline { display: inline; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin-bottom: 1rem; }
label { display: block; font-weight: 600; font-size: .9rem; }
input, select { font: inherit; padding: .3rem .4rem; border: 1px solid var(--muted); border-radius: 4px;
  max-width: 100%; box-sizing: border-box; }
form.filters > div { max-width: 100%; }
dd { margin-left: 1rem; }
a.danger { color: var(--bad); }
button { font: inherit; padding: .35rem .8rem; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; }
button.danger { background: var(--bad); border-color: var(--bad); }
button.plain { background: transparent; color: #fff; border-color: #fff; }
.field { margin-bottom: .75rem; }
fieldset.field { border: 1px solid var(--line); border-radius: 4px; padding: .5rem .75rem; }
legend { font-weight: 600; font-size: .9rem; }
label.choice { display: inline-block; font-weight: 400; margin-right: 1rem; }
.notice { border-left: 4px solid var(--warn); background: #fff8e6; padding: .5rem 1rem; margin: 1rem 0; }
.error { border-left: 4px solid var(--bad); background: #fdecec; padding: .5rem 1rem; margin: 1rem 0; }
.success { border-left: 4px solid var(--ok); background: #eaf6ec; padding: .5rem 1rem; margin: 1rem 0; }
.stats { display: flex; flex-wrap: wrap; gap: 1rem; padding: 0; list-style: none; }
.stats li { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem; min-width: 9rem; }
.stats strong { display: block; font-size: 1.4rem; }
.muted { color: var(--muted); }
.pager { display: flex; gap: 1rem; align-items: center; }
svg.chart { max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
.severe { fill: var(--bad); } .warning { fill: #b36b00; } .info { fill: var(--accent); }
.legend { display: flex; gap: 1rem; list-style: none; padding: 0; font-size: .85rem; }
.swatch { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: middle; }
.swatch.severe { background: var(--bad); } .swatch.warning { background: #b36b00; } .swatch.info { background: var(--accent); }
.refused { fill: var(--bad); } .runs { fill: var(--accent); }
.swatch.refused { background: var(--bad); } .swatch.runs { background: var(--accent); }
.outcome { font-weight: 600; white-space: nowrap; } .outcome-ok { color: var(--ok); }
.outcome-refused, .outcome-failed { color: var(--bad); } .outcome-invalid, .outcome-pending_approval { color: var(--warn); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
