/** The console's stylesheet, served as `console/assets/console.css` (CSP `style-src 'self'`: no inline styles). */
export const CONSOLE_CSS = `
:root{color-scheme:light;--ok:#15803d;--no:#b91c1c;--warn:#92400e;--line:#d4d4d8;--muted:#52525b}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#18181b;background:#fafafa}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#18181b;color:#fff}
header.top h1{font-size:1.1rem;margin:0}
header.top a{color:#fff}
header.top button{background:transparent;color:#fff;border-color:#fff}
nav a{margin-right:1rem}
main{max-width:56rem;margin:0 auto;padding:1rem}
.signin{max-width:28rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 1rem;padding:1rem}
label{display:block;margin:.25rem 0}
input,select,textarea{font:inherit;padding:.4rem;border:1px solid #71717a;border-radius:4px;max-width:100%}
input[type=text],input[type=password],input[type=search],textarea{width:100%}
textarea{font-family:ui-monospace,monospace;min-height:12rem}
button{font:inherit;padding:.45rem 1rem;border:1px solid #3f3f46;border-radius:4px;background:#fff;color:#18181b;cursor:pointer;min-height:2.5rem}
button.approve{background:var(--ok);border-color:var(--ok);color:#fff}
button.deny{background:var(--no);border-color:var(--no);color:#fff}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin-bottom:1rem}
.filters label{margin:0}
.card{background:#fff;border:1px solid var(--line);border-left:6px solid #a1a1aa;border-radius:6px;padding:.75rem 1rem;margin:0 0 1rem}
.card:focus,.card.current{outline:3px solid #2563eb;outline-offset:2px}
.card h2{font-size:1.1rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.card .meta,.card .times{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.card pre{background:#f4f4f5;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word;margin:.5rem 0}
.card figure{margin:.5rem 0}
.card figcaption{color:var(--muted);font-size:.9rem}
.context blockquote{margin:.25rem 0 0;padding:.25rem .75rem;border-left:3px solid var(--line);background:#fafafa}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.card pre.text-block{background:#fff;border:1px solid var(--line)}
pre.diff{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0;padding:.25rem;background:#f4f4f5}
pre.diff del{display:block;text-decoration:none;background:#fee2e2;color:#7f1d1d}
pre.diff ins{display:block;text-decoration:none;background:#dcfce7;color:#14532d}
.badge{display:inline-block;font-size:.8rem;padding:0 .4rem;border-radius:999px;border:1px solid #71717a;margin-right:.25rem}
.badge.destructive{border-color:var(--no);color:var(--no)}
.warn{background:#fff4e5;border-left:4px solid #f59e0b;padding:.25rem .75rem;color:#451a03}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin-top:.5rem}
.actions label{flex:1 1 12rem}
.actions fieldset.grant{display:flex;flex-wrap:wrap;gap:.5rem;margin:0;padding:.25rem .75rem .5rem;flex:1 1 100%}
.actions fieldset.grant legend{font-size:.9rem;color:var(--muted)}
.actions fieldset.grant label{flex:1 1 6rem}
.actions fieldset.grant input{width:100%}
.state{font-weight:600;margin:.5rem 0 0}
.question{display:block}
.question .field{margin:0 0 .75rem;padding:.5rem .75rem}
.question div.field{border:0;padding:0}
.question .field>label,.question .field>legend{font-weight:600}
.question .option{display:block}
.question .hint{display:block;color:var(--muted);font-size:.9rem}
.question .field textarea{font-family:inherit;min-height:5rem}
.question .field input[type=text],.question .field textarea{width:100%}
.field-error{display:block;color:var(--no);font-weight:600}
.question .buttons{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
.card[data-state=approved],.card[data-state=completed]{border-left-color:var(--ok)}
.card[data-state=denied],.card[data-state=dismissed],.card[data-state=failed],.card[data-state=expired]{border-left-color:var(--no)}
.card[data-state]:not([data-state=pending]) form,.card[data-state]:not([data-state=pending]) .js-only{display:none}
.card form.cancel-run{display:none}
.card[data-state=approved] form.cancel-run{display:block}
.error{color:var(--no);font-weight:600}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
caption{text-align:left;font-weight:600;padding:.25rem 0}
.scroll{overflow-x:auto}
.scroll table{width:max-content;min-width:100%}
.scroll th,.scroll td{overflow-wrap:normal}
.chart{margin:1rem 0}
.chart figcaption{color:var(--muted);font-size:.9rem}
.chart svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}
.chart text{fill:#18181b}
.chart rect.bar{fill:#2563eb}
dialog{max-width:min(44rem,calc(100vw - 1rem));width:100%}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
[hidden]{display:none!important}
@media (max-width:480px){main{padding:.5rem}.card{padding:.5rem}}
`;
