"use strict";
// The akshara check page: asks /v1/analyze as the user types and shows one
// headline that says what the customer can do (VERDICTS below, one table
// for every status of the check answer), the aksharas (with the failing
// one marked where a rule points at one), each error's rule code with a
// plain explanation, the A-label, the variants. The URL carries the check
// (?name=&zone=&lang=), so every result has a link and the back button
// walks the checks. An on-screen InScript keyboard per language, built by
// the server from the language's table (/keyboard/{tag}.json). English and
// Hindi interface.

const T = {
  en: {
    title: "Check a domain name", labelField: "Name", langField: "Language",
    hint: "Type a name in any Indian script, or its xn-- form.",
    langsField: "Languages that accept it", alabelField: "A-label",
    variantsField: "Variants (blocked when it is registered)", api: "API",
    policy: "The policy of each language", permalink: "Link to this result",
    detect: "Detect (every language of the zone)", switchTo: "हिन्दी",
    none: "none",
    validIn: "A valid name in {0}.", invalidIn: "Checked as {0}.", policyOf: "The policy of {0}",
    offline: "The server cannot be reached. Check your connection and try again; what you typed is kept.",
    failed: "The server could not answer: {0}", syllables: "Aksharas",
    kbdShow: "On-screen keyboard", kbdLang: "Keyboard for", kbdLabel: "On-screen keyboard: {0}",
    shift: "Shift", shiftLabel: "Shift: the other letters of each key",
    backspace: "⌫", backspaceLabel: "Delete the character before the cursor",
    kbdPhysical: "Type InScript with my keyboard",
    more: "More letters", ldh: "ASCII letters, digits and hyphens",
    verdicts: {
      available: "{0} is available: you can register it.",
      registered: "{0} is already registered: it cannot be registered again.",
      blocked: "{0} cannot be registered: it looks like the registered name {1}.",
      exempted: "{0} is registered; it was kept although it conflicts with {1} (exempted).",
      reserved: "{0} is reserved by the registry: it cannot be registered.",
      invalid: "{0} is not a valid name: {1}",
      unknown: "{0}: the registry answers “{1}”."
    },
    // a name held by a deleted domain not purged yet ({0} the holder, {1}
    // when it frees the name and its variants, {2} the registry's word for
    // a state the page does not know)
    held: {
      redemptionPeriod: "Held by {0}, deleted, in its redemption period (its registrar can still restore it); frees at {1}.",
      pendingRestore: "Held by {0}, deleted, its registrar asking to restore it; if it is not restored, frees at {1}.",
      pendingDelete: "Held by {0}, deleted, pending delete (it can no longer be restored); frees at {1}.",
      unknown: "Held by {0}, deleted ({2}); frees at {1}."
    },
    codes: {
      EMPTY: "The name is empty.",
      INVALID_UTF8: "The name is not valid text.",
      BAD_ALABEL: "This xn-- form is not a valid encoded name.",
      TOO_LONG: "The name is too long once encoded (at most 63 characters).",
      TOO_SHORT: "The name is too short (at least 3 characters).",
      DIGITS_ONLY: "A name of only one or two digits is not allowed.",
      HYPHEN_START: "A name cannot begin with a hyphen.",
      HYPHEN_END: "A name cannot end with a hyphen.",
      HYPHEN_DOUBLE: "Two hyphens in a row are not allowed.",
      JOINER: "Invisible joiners (ZWJ, ZWNJ) are not allowed.",
      MIXED_SCRIPT: "Letters of another script (such as Latin) cannot be mixed in.",
      NATIVE_DIGIT: "Use the digits 0-9, not the script's own digits.",
      PUNCTUATION: "Punctuation, such as the danda, is not allowed.",
      SYMBOL: "Symbols such as OM or the abbreviation sign are not allowed.",
      RARE: "This rare or old letter is not allowed.",
      STRESS_MARK: "Vedic and stress signs are not allowed.",
      NOT_IN_REPERTOIRE: "This character is not part of the language.",
      SYLLABLE: "These characters do not make a proper akshara here (for example a vowel sign at the start, or two vowel signs).",
      CLUSTER_TOO_LONG: "Too many consonants are joined into one akshara.",
      IDENTICAL_CONSONANTS: "Three identical consonants cannot be joined.",
      HALANT_FOLLOWER: "After a halant only a hyphen, a digit, an avagraha or the end may follow.",
      NUKTA_BASE: "The nukta is not allowed on this letter.",
      SIGN_COMBINATION: "These two signs cannot be used together.",
      CONJUNCT: "This combination of letters is not allowed in the language.",
      ADDAK: "The addak is in the wrong place.",
      TIPPI_BINDI: "Tippi and bindi are in the wrong place.",
      VARIANT_LIMIT: "More than three aksharas of the name have look-alike variants.",
      BIDI: "A right-to-left name must begin with a letter (the Bidi rule for domain names).",
      VOWEL_MARK: "Vowel marks (harakat) are not allowed in this language's names.",
      LETTER_MIX: "These two letters cannot be used in the same name."
    }
  },
  hi: {
    title: "डोमेन नाम जाँचें", labelField: "नाम", langField: "भाषा",
    hint: "किसी भी भारतीय लिपि में नाम लिखें, या उसका xn-- रूप।",
    langsField: "इसे स्वीकार करने वाली भाषाएँ", alabelField: "A-लेबल",
    variantsField: "रूपांतर (पंजीकरण के बाद अवरुद्ध)", api: "API",
    policy: "हर भाषा की नीति", permalink: "इस परिणाम की कड़ी",
    detect: "पहचानें (ज़ोन की हर भाषा)", switchTo: "English",
    none: "कोई नहीं",
    validIn: "{0} में मान्य नाम।", invalidIn: "{0} के रूप में जाँचा गया।", policyOf: "{0} की नीति",
    offline: "सर्वर से संपर्क नहीं हो पा रहा। कनेक्शन जाँचकर फिर कोशिश करें; आपका लिखा सुरक्षित है।",
    failed: "सर्वर उत्तर नहीं दे सका: {0}", syllables: "अक्षर",
    kbdShow: "ऑन-स्क्रीन कीबोर्ड", kbdLang: "कीबोर्ड की भाषा", kbdLabel: "ऑन-स्क्रीन कीबोर्ड: {0}",
    shift: "Shift", shiftLabel: "Shift: हर कुंजी के दूसरे अक्षर",
    backspace: "⌫", backspaceLabel: "कर्सर से पहले का वर्ण मिटाएँ",
    kbdPhysical: "अपने कीबोर्ड से InScript में लिखें",
    more: "और अक्षर", ldh: "ASCII अक्षर, अंक और हाइफ़न",
    verdicts: {
      available: "{0} उपलब्ध है: आप इसे पंजीकृत कर सकते हैं।",
      registered: "{0} पहले से पंजीकृत है: इसे फिर पंजीकृत नहीं किया जा सकता।",
      blocked: "{0} पंजीकृत नहीं किया जा सकता: यह पंजीकृत नाम {1} जैसा दिखता है।",
      exempted: "{0} पंजीकृत है; {1} से टकराव के बावजूद इसे रखा गया (छूट प्राप्त)।",
      reserved: "{0} रजिस्ट्री द्वारा आरक्षित है: इसे पंजीकृत नहीं किया जा सकता।",
      invalid: "{0} मान्य नाम नहीं है: {1}",
      unknown: "{0}: रजिस्ट्री का उत्तर “{1}”।"
    },
    held: {
      redemptionPeriod: "{0} के पास, जो हटाया जा चुका है और अपनी रिडेम्पशन अवधि में है (उसका रजिस्ट्रार उसे अब भी बहाल कर सकता है); {1} को मुक्त होगा।",
      pendingRestore: "{0} के पास, जो हटाया जा चुका है और जिसकी बहाली का अनुरोध उसके रजिस्ट्रार ने किया है; बहाल न होने पर {1} को मुक्त होगा।",
      pendingDelete: "{0} के पास, जो हटाया जा चुका है और अब बहाल नहीं हो सकता; {1} को मुक्त होगा।",
      unknown: "{0} के पास, जो हटाया जा चुका है ({2}); {1} को मुक्त होगा।"
    },
    codes: {
      EMPTY: "नाम खाली है।",
      INVALID_UTF8: "नाम मान्य पाठ नहीं है।",
      BAD_ALABEL: "यह xn-- रूप मान्य नहीं है।",
      TOO_LONG: "नाम बहुत लंबा है (कूटबद्ध रूप में अधिकतम 63 वर्ण)।",
      TOO_SHORT: "नाम बहुत छोटा है (कम से कम 3 वर्ण)।",
      DIGITS_ONLY: "केवल एक या दो अंकों का नाम मान्य नहीं है।",
      HYPHEN_START: "नाम हाइफ़न से शुरू नहीं हो सकता।",
      HYPHEN_END: "नाम हाइफ़न पर समाप्त नहीं हो सकता।",
      HYPHEN_DOUBLE: "लगातार दो हाइफ़न मान्य नहीं हैं।",
      JOINER: "अदृश्य योजक (ZWJ, ZWNJ) मान्य नहीं हैं।",
      MIXED_SCRIPT: "दूसरी लिपि (जैसे रोमन) के अक्षर नहीं मिलाए जा सकते।",
      NATIVE_DIGIT: "अंक 0-9 लिखें, लिपि के अपने अंक नहीं।",
      PUNCTUATION: "विराम चिह्न, जैसे पूर्ण विराम (।), मान्य नहीं हैं।",
      SYMBOL: "ॐ या संक्षेप चिह्न जैसे प्रतीक मान्य नहीं हैं।",
      RARE: "यह दुर्लभ या पुराना अक्षर मान्य नहीं है।",
      STRESS_MARK: "वैदिक और स्वराघात चिह्न मान्य नहीं हैं।",
      NOT_IN_REPERTOIRE: "यह वर्ण इस भाषा का नहीं है।",
      SYLLABLE: "ये वर्ण यहाँ सही अक्षर नहीं बनाते (जैसे शुरू में मात्रा, या दो मात्राएँ)।",
      CLUSTER_TOO_LONG: "एक अक्षर में बहुत सारे व्यंजन जुड़े हैं।",
      IDENTICAL_CONSONANTS: "तीन एक जैसे व्यंजन हलंत से नहीं जोड़े जा सकते।",
      HALANT_FOLLOWER: "हलंत के बाद केवल हाइफ़न, अंक, अवग्रह या नाम का अंत आ सकता है।",
      NUKTA_BASE: "इस अक्षर पर नुक़्ता मान्य नहीं है।",
      SIGN_COMBINATION: "ये दो चिह्न साथ में नहीं आ सकते।",
      CONJUNCT: "अक्षरों का यह मेल इस भाषा में मान्य नहीं है।",
      ADDAK: "अद्धक गलत स्थान पर है।",
      TIPPI_BINDI: "टिप्पी और बिंदी गलत स्थान पर हैं।",
      VARIANT_LIMIT: "नाम के तीन से अधिक अक्षरों के मिलते-जुलते रूप हैं।",
      BIDI: "दाएँ से बाएँ लिखा जाने वाला नाम किसी अक्षर से शुरू होना चाहिए (डोमेन नामों का Bidi नियम)।",
      VOWEL_MARK: "इस भाषा के नामों में स्वर चिह्न (हरकात) मान्य नहीं हैं।",
      LETTER_MIX: "ये दो अक्षर एक ही नाम में नहीं आ सकते।"
    }
  }
};

// VERDICTS: what each status of the check answer means to the customer,
// and its tone (the headline's colour). An unknown status falls back to
// "unknown", in a neutral tone, naming the status.
const VERDICTS = {
  available: { tone: "ok" },
  registered: { tone: "taken" },
  blocked: { tone: "taken" },
  exempted: { tone: "taken" },
  reserved: { tone: "taken" },
  invalid: { tone: "bad" },
  unknown: { tone: "info" }
};

// Rule codes about the whole name: their position marks no akshara.
const WHOLE_NAME = new Set(["EMPTY", "TOO_LONG", "TOO_SHORT", "DIGITS_ONLY", "BAD_ALABEL", "VARIANT_LIMIT", "BIDI"]);

// The languages' names in the Hindi interface; English names come from the
// server (/keyboard/languages.json, the language files).
const HINDI_NAMES = {
  hi: "हिन्दी", mr: "मराठी", kok: "कोंकणी", ne: "नेपाली", sa: "संस्कृत", brx: "बड़ो", doi: "डोगरी",
  mai: "मैथिली", "sd-Deva": "सिंधी (देवनागरी)", bn: "बांग्ला", as: "असमिया", pa: "पंजाबी", gu: "गुजराती",
  or: "ओड़िया", ta: "तमिल", te: "तेलुगु", kn: "कन्नड़", ml: "मलयालम",
  "sat-Deva": "संथाली (देवनागरी)", sat: "संथाली (ओल चिकी)", "ks-Deva": "कश्मीरी (देवनागरी)", ks: "कश्मीरी",
  mni: "मणिपुरी (बांग्ला लिपि)", "mni-Mtei": "मणिपुरी (मीतै मयेक)", ur: "उर्दू", sd: "सिंधी"
};

const $ = (id) => document.getElementById(id);
let ui = localStorage.getItem("akshara-ui") === "hi" ? "hi" : "en";
let zones = [];
let languages = {}; // tag → {name, native, script}
let last = null;    // the last analysis shown
let seq = 0;        // answers to older requests are dropped
let lastPush = -Infinity; // when the last history entry was made by typing

function t(key, ...args) {
  return String(T[ui][key] ?? T.en[key]).replace(/\{(\d)\}/g, (_, i) => args[i]);
}
function langName(tag) {
  if (tag === "ldh") return t("ldh");
  const l = languages[tag];
  const name = ui === "hi" ? (HINDI_NAMES[tag] || (l && l.name)) : (l && l.name);
  return name ? `${name} (${tag})` : tag;
}
function zoneOf(name) { return zones.find((z) => z.name === name); }

function applyUI() {
  document.documentElement.lang = ui;
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  $("ui-lang").textContent = t("switchTo");
  $("ui-lang").lang = ui === "en" ? "hi" : "en";
  $("syllables").setAttribute("aria-label", t("syllables"));
  fillLangs();
  fillKbdLangs();
  if (kbd.data) drawKeyboard();
  if (last) render(last);
}

function fillZones() {
  $("zone").replaceChildren(...zones.map((z) => new Option(z.name, z.name)));
  if (zoneOf("भारत")) $("zone").value = "भारत";
}

function fillLangs() {
  const zone = zoneOf($("zone").value);
  const sel = $("lang");
  const keep = sel.value || "auto";
  const opts = [new Option(t("detect"), "auto")];
  for (const tag of zone ? zone.languages : []) opts.push(new Option(langName(tag), tag));
  sel.replaceChildren(...opts);
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : "auto";
}

// ---- the URL: ?name=किताब.भारत&zone=&lang=

// splitName reads a full name, label.zone: the zone is its last label, by
// name or A-label; null when the name does not end in a zone.
// the last full name split into the form: a label with dots left in it
// is checked with that zone (www.किताब + भारत), else as it is (google.com)
let lastSplit = null;

function splitName(name) {
  name = name.replace(/[.。．｡]$/, ""); // a final dot: the same name
  const dot = name.search(/[.。．｡][^.。．｡]*$/);
  if (dot <= 0) return null;
  const tld = name.slice(dot + 1).toLowerCase();
  const z = zones.find((z) => z.name === tld || (z.alabel || "").toLowerCase() === tld);
  return z ? { label: name.slice(0, dot), zone: z.name } : null;
}

// fromURL puts the check the URL names into the form.
function fromURL() {
  const q = new URLSearchParams(location.search);
  let name = (q.get("name") || "").trim();
  let zone = q.get("zone") || "";
  const lang = q.get("lang") || "";
  if (!zone) {
    const full = splitName(name);
    if (full) { zone = full.zone; name = full.label; lastSplit = full; }
  }
  if (!zone && lang && lang !== "auto") {
    // the current zone if it takes the language, else the language's own
    // ccTLD, else the first zone that takes it
    const cur = zoneOf($("zone").value);
    if (!cur || !cur.languages.includes(lang)) {
      const own = languages[lang] && zoneOf(languages[lang].cctld);
      const z = own && own.languages.includes(lang) ? own : zones.find((z) => z.languages.includes(lang));
      if (z) zone = z.name;
    }
  }
  if (zone && zoneOf(zone)) $("zone").value = zone;
  else if (zone) { const z = zones.find((z) => (z.alabel || "").toLowerCase() === zone.toLowerCase()); if (z) $("zone").value = z.name; }
  fillLangs();
  $("lang").value = [...$("lang").options].some((o) => o.value === lang) ? lang : "auto";
  $("label").value = name;
  syncKbdLang();
}

function urlFor(label) {
  if (!label) return location.pathname;
  const q = new URLSearchParams({ name: label + "." + $("zone").value });
  if ($("lang").value !== "auto") q.set("lang", $("lang").value);
  return location.pathname + "?" + q;
}

// record writes the check into the URL: typing replaces the entry it made
// a moment ago, so the back button walks checks, not keystrokes.
function record(label, typed) {
  const url = urlFor(label);
  if (url === location.pathname + location.search) return;
  const now = performance.now();
  if (typed && now - lastPush < 1500) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  lastPush = typed ? now : -Infinity;
}

function showOffline(msg) {
  $("offline").textContent = msg;
  $("offline").hidden = false;
  $("result").hidden = true;
}

async function analyze(how) {
  // a full name typed or pasted into the field: its zone goes to the menu
  const full = splitName($("label").value.trim());
  if (full) {
    lastSplit = full;
    $("label").value = full.label;
    if ($("zone").value !== full.zone) { $("zone").value = full.zone; fillLangs(); syncKbdLang(); }
  }
  const label = $("label").value.trim();
  const id = ++seq;
  if (how !== "history") record(label, how === "typed");
  if (label === "") { $("result").hidden = true; last = null; return; }
  if (/[.。．｡]/.test(label)) {
    // not label.zone (a third-level name, a zone not served): the check
    // API says why, in the words it gives every client
    const split = lastSplit && lastSplit.label === label && lastSplit.zone === $("zone").value;
    const name = split ? label + "." + $("zone").value : label;
    let body = null;
    try {
      const resp = await fetch("/v1/check?name=" + encodeURIComponent(name), { headers: { Accept: "application/json" } });
      body = await resp.json();
    } catch (e) { body = null; }
    if (id !== seq) return;
    showOffline(body && body.message ? body.message : t("offline"));
    $("offline").dataset.code = body && body.code ? body.code : "";
    return;
  }
  const q = new URLSearchParams({ label, zone: $("zone").value, lang: $("lang").value });
  let resp;
  try {
    resp = await fetch("/v1/analyze?" + q, { headers: { Accept: "application/json" } });
  } catch (e) {
    if (id === seq) showOffline(t("offline"));
    return;
  }
  let body;
  try { body = await resp.json(); } catch (e) { body = null; }
  if (id !== seq) return;
  if (!resp.ok || !body) {
    showOffline(t("failed", body && body.message ? body.message : resp.status));
    return;
  }
  $("offline").hidden = true;
  last = body;
  render(body);
  // time to the first verdict, from the start of the navigation
  if (!document.body.dataset.firstVerdictMs) document.body.dataset.firstVerdictMs = String(Math.round(performance.now()));
}

function explain(e) { return T[ui].codes[e.code] || e.message || e.code; }

function headline(a) {
  // a registered name kept despite a conflict: the status "exempted", or
  // "registered" with exempted set (the check answer's two spellings)
  const st = a.status === "registered" && a.exempted ? "exempted" : a.status;
  const status = VERDICTS[st] ? st : "unknown";
  const name = a.label + "." + a.zone;
  const with_ = a.exempt_with || a.exempted_with;
  // an exempted name is named with the names it is exempted with, never
  // with itself (an old answer may carry blocked_by = the name itself)
  const withText = Array.isArray(with_) ? with_.join(", ") : (with_ || "");
  const by = a.blocked_by && a.blocked_by !== a.ulabel + "." + a.zone && a.blocked_by !== name ? a.blocked_by : "";
  const other = status === "exempted" ? (withText || by) : (by || withText);
  let text;
  if (status === "invalid") {
    const first = (a.errors || [])[0];
    // after the colon the reason goes on the sentence: "not a valid name: these …"
    const why = first ? explain(first).replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase()) : "";
    text = T[ui].verdicts.invalid.replace("{0}", name).replace("{1}", why);
  } else if (status === "unknown") {
    text = T[ui].verdicts.unknown.replace("{0}", name).replace("{1}", a.status);
  } else {
    text = T[ui].verdicts[status].replace("{0}", name).replace("{1}", other || "—");
  }
  return { status, tone: VERDICTS[status].tone, text };
}

// fill puts nodes (or strings) in place of {0}, {1}… in a template.
function fill(template, ...parts) {
  return template.split(/(\{\d\})/).map((p) => {
    const m = /^\{(\d)\}$/.exec(p);
    return m ? parts[m[1]] ?? p : p;
  });
}

// freesAt writes the instant a held name frees, in the interface's
// language, in UTC (the registry's clock), as a <time>.
function freesAt(iso) {
  const el = document.createElement("time");
  el.dateTime = iso;
  const d = new Date(iso);
  el.textContent = isNaN(d) ? iso : new Intl.DateTimeFormat(ui === "hi" ? "hi-IN" : "en-IN", {
    year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZone: "UTC", timeZoneName: "short"
  }).format(d);
  return el;
}

// showHeld says who holds a name held by a deleted domain (the name's own
// registration, or the variant's that blocks it), in which state, and
// when the name frees (the check answer's holder_state and frees_at).
function showHeld(a, name) {
  const held = $("held");
  if (!a.holder_state) { held.hidden = true; held.replaceChildren(); delete held.dataset.state; return; }
  const holder = document.createElement("span");
  holder.textContent = a.blocked_by || name;
  if (languages[a.lang]) holder.lang = a.lang;
  const words = T[ui].held[a.holder_state] || T[ui].held.unknown;
  held.replaceChildren(...fill(words, holder, a.frees_at ? freesAt(a.frees_at) : "—", a.holder_state));
  held.dataset.state = a.holder_state;
  held.hidden = false;
}

function render(a) {
  const res = $("result");
  res.hidden = false;
  res.dataset.valid = String(a.valid);
  res.dataset.label = a.label;
  const h = headline(a);
  const v = $("verdict");
  v.dataset.status = a.status;
  v.dataset.tone = h.tone;
  // the name keeps its own language (fonts, sizes, screen readers)
  const name = a.label + "." + a.zone;
  const at = h.text.indexOf(name);
  const span = document.createElement("span");
  span.textContent = name;
  v.replaceChildren(at < 0 ? h.text : h.text.slice(0, at), ...(at < 0 ? [] : [span, h.text.slice(at + name.length)]));
  showHeld(a, name);
  for (const el of [span, $("label"), $("syllables")]) {
    if (languages[a.lang]) el.lang = a.lang; else el.removeAttribute("lang");
  }
  const detail = $("detail");
  detail.replaceChildren(a.lang ? (a.valid ? t("validIn", langName(a.lang)) : t("invalidIn", langName(a.lang))) : "");
  if (languages[a.lang]) {
    // the rules the name was judged by, for the customer who asks why
    const rules = document.createElement("a");
    rules.href = "/policy/" + encodeURIComponent(a.lang);
    rules.id = "policy-link";
    rules.textContent = t("policyOf", langName(a.lang));
    detail.append(" ", rules);
  }

  // the aksharas, with the failing akshara and character marked where a
  // rule points at one
  const bad = new Set((a.errors || []).filter((e) => !WHOLE_NAME.has(e.code)).map((e) => e.pos));
  const chars = [...(a.ulabel || "")];
  const box = $("syllables");
  box.replaceChildren();
  // a right-to-left label (Urdu, Sindhi, Kashmiri) reads its aksharas
  // right to left
  box.dir = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/.test(a.ulabel || a.label || "") ? "rtl" : "ltr";
  for (const s of a.syllables || []) {
    const span = document.createElement("span");
    span.className = "syllable";
    for (let i = s.start; i < s.end; i++) {
      const c = document.createElement("span");
      c.className = "char";
      c.textContent = chars[i] ?? "";
      if (bad.has(i)) { c.classList.add("bad"); span.classList.add("bad"); }
      span.append(c);
    }
    box.append(span);
  }
  const list = $("errors");
  list.replaceChildren();
  for (const e of a.errors || []) {
    const li = document.createElement("li");
    li.className = "error";
    li.dataset.code = e.code;
    const code = document.createElement("code");
    code.textContent = e.code;
    li.append(code, " ", explain(e));
    if (ui === "en" && e.message) {
      const detail = document.createElement("div");
      detail.className = "hint";
      detail.textContent = e.message;
      li.append(detail);
    }
    list.append(li);
  }
  $("langs").textContent = (a.langs && a.langs.length) ? a.langs.map(langName).join(", ") : t("none");
  $("langs").dataset.langs = (a.langs || []).join(" ");
  const z = zoneOf(a.zone);
  $("alabel").textContent = a.alabel ? a.alabel + "." + (z ? z.alabel : "") : "—";
  const vs = a.variants && a.variants.length ? a.variants : null;
  $("variants").textContent = vs ? vs.join(", ") : t("none");
  if (vs && languages[a.lang]) $("variants").lang = a.lang; else $("variants").removeAttribute("lang");
  $("permalink").href = urlFor(a.label);
}

// ---- the on-screen keyboard

const kbd = { data: null, shift: false, tag: "", chosen: false };

function fillKbdLangs() {
  const sel = $("kbd-lang");
  const keep = sel.value;
  const tags = Object.keys(languages).sort((x, y) => langName(x).localeCompare(langName(y)));
  sel.replaceChildren(...tags.map((tag) => new Option(langName(tag), tag)));
  if (keep) sel.value = keep;
}

// syncKbdLang: the keyboard follows the chosen language, or the zone's
// first, until the user picks a keyboard.
function syncKbdLang() {
  if (kbd.chosen) return;
  const lang = $("lang").value;
  const z = zoneOf($("zone").value);
  const tag = lang !== "auto" ? lang : (z && z.languages.find((l) => languages[l]));
  if (tag && languages[tag]) { $("kbd-lang").value = tag; if (!$("kbd-panel").hidden) loadKeyboard(tag); }
}

async function loadKeyboard(tag) {
  if (kbd.data && kbd.tag === tag) return;
  kbd.tag = tag;
  try {
    const resp = await fetch("/keyboard/" + encodeURIComponent(tag) + ".json");
    if (!resp.ok) throw new Error(resp.status);
    const data = await resp.json();
    if (kbd.tag !== tag) return;
    kbd.data = data;
  } catch (e) {
    showOffline(t("offline"));
    return;
  }
  drawKeyboard();
}

function keyButton(cap, cls) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "key " + (cls || "");
  b.textContent = cap.show;
  b.setAttribute("aria-label", cap.label);
  b.dataset.text = cap.text;
  b.tabIndex = -1;
  return b;
}

function drawKeyboard() {
  const box = $("keyboard");
  const d = kbd.data;
  box.setAttribute("aria-label", t("kbdLabel", langName(d.tag)));
  box.dataset.tag = d.tag;
  box.lang = d.tag;
  const rows = [];
  for (const row of d.rows) {
    const div = document.createElement("div");
    div.className = "kbd-row";
    div.setAttribute("role", "presentation");
    for (const k of row) {
      const cap = kbd.shift ? k.shift : k.normal;
      if (!cap) {
        const blank = document.createElement("span");
        blank.className = "key blank";
        blank.setAttribute("aria-hidden", "true");
        div.append(blank);
        continue;
      }
      const b = keyButton(cap);
      b.dataset.key = k.key;
      div.append(b);
    }
    rows.push(div);
  }
  const ctl = document.createElement("div");
  ctl.className = "kbd-row controls";
  const shift = document.createElement("button");
  shift.type = "button";
  shift.className = "key wide";
  shift.id = "kbd-shift";
  shift.textContent = "⇧ " + t("shift");
  shift.setAttribute("aria-label", t("shiftLabel"));
  shift.lang = "en";
  shift.setAttribute("aria-pressed", String(kbd.shift));
  shift.tabIndex = -1;
  const back = document.createElement("button");
  back.type = "button";
  back.className = "key wide";
  back.id = "kbd-back";
  back.textContent = t("backspace");
  back.setAttribute("aria-label", t("backspaceLabel"));
  back.tabIndex = -1;
  ctl.append(shift, back);
  rows.push(ctl);
  if (d.more && d.more.length) {
    const more = document.createElement("div");
    more.className = "kbd-row more";
    const h = document.createElement("span");
    h.className = "more-title";
    h.textContent = t("more");
    more.append(h, ...d.more.map((c) => keyButton(c)));
    rows.push(more);
  }
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focused ? (focused.id || focused.dataset.key || focused.dataset.text) : null;
  box.replaceChildren(...rows);
  // one tab stop: the key that had it, else the first
  const keys = [...box.querySelectorAll("button")];
  let current = keys.find((b) => focusKey && (b.id === focusKey || b.dataset.key === focusKey || b.dataset.text === focusKey)) || keys[0];
  if (current) { current.tabIndex = 0; if (focused) current.focus(); }
}

function press(b) {
  const input = $("label");
  if (b.id === "kbd-shift") {
    kbd.shift = !kbd.shift;
    drawKeyboard();
    return;
  }
  const start = input.selectionStart ?? input.value.length;
  const end = input.selectionEnd ?? start;
  if (b.id === "kbd-back") {
    if (start === end && start > 0) {
      // one code point (a surrogate pair is one)
      const before = [...input.value.slice(0, start)];
      before.pop();
      const at = before.join("").length;
      input.setRangeText("", at, start, "end");
    } else input.setRangeText("", start, end, "end");
  } else {
    input.setRangeText(b.dataset.text, start, end, "end");
    if (kbd.shift) { kbd.shift = false; drawKeyboard(); }
  }
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

// arrow keys move between keys (one tab stop for the whole keyboard)
function moveFocus(e) {
  const box = $("keyboard");
  const rows = [...box.querySelectorAll(".kbd-row")].map((r) => [...r.querySelectorAll("button")]).filter((r) => r.length);
  let ri = -1, ci = -1;
  rows.forEach((r, i) => { const j = r.indexOf(document.activeElement); if (j >= 0) { ri = i; ci = j; } });
  if (ri < 0) return;
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], Home: [0, -99], End: [0, 99] };
  const m = moves[e.key];
  if (!m) return;
  e.preventDefault();
  const nr = Math.max(0, Math.min(rows.length - 1, ri + m[0]));
  const nc = Math.max(0, Math.min(rows[nr].length - 1, ci + m[1]));
  const next = rows[nr][nc];
  document.activeElement.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
}

// InScript on a physical keyboard: with the box ticked, a key of the name
// field types what the on-screen key at the same place types (by the key's
// position, event.code, so it works whatever the system's layout is).
const CODE_KEYS = { Backquote: "`", Minus: "-", Equal: "=", BracketLeft: "[", BracketRight: "]", Backslash: "\\",
  Semicolon: ";", Quote: "'", Comma: ",", Period: ".", Slash: "/" };
function keyOfCode(code) {
  if (/^Key[A-Z]$/.test(code)) return code.slice(3).toLowerCase();
  if (/^Digit[0-9]$/.test(code)) return code.slice(5);
  return CODE_KEYS[code];
}
let swallow = false;
function swallowed(e) {
  if (swallow && (e.type === "keypress" || e.inputType === "insertText")) e.preventDefault();
  if (e.type !== "keypress") swallow = false;
}
function physicalKey(e) {
  swallow = false;
  if (!$("kbd-physical").checked || !kbd.data || e.ctrlKey || e.altKey || e.metaKey || e.isComposing) return;
  const key = keyOfCode(e.code);
  if (!key) return;
  for (const row of kbd.data.rows) {
    const k = row.find((k) => k.key === key);
    if (!k) continue;
    e.preventDefault(); // a key the language leaves empty types nothing
    swallow = true;     // and the key's own character, whatever sends it
    const cap = e.shiftKey ? k.shift : k.normal;
    if (cap) insert(cap.text);
    return;
  }
}

function insert(text) {
  const input = $("label");
  const start = input.selectionStart ?? input.value.length;
  const end = input.selectionEnd ?? start;
  input.setRangeText(text, start, end, "end");
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

function toggleKeyboard() {
  const open = $("kbd-panel").hidden;
  $("kbd-panel").hidden = !open;
  $("kbd-toggle").setAttribute("aria-expanded", String(open));
  if (open) loadKeyboard($("kbd-lang").value);
}

// ----

let timer;
function schedule() { clearTimeout(timer); timer = setTimeout(() => analyze("typed"), 120); }

async function start() {
  applyUI();
  $("form").addEventListener("submit", (e) => { e.preventDefault(); analyze("submit"); });
  $("label").addEventListener("input", schedule);
  $("zone").addEventListener("change", () => { fillLangs(); syncKbdLang(); analyze("changed"); });
  $("lang").addEventListener("change", () => { syncKbdLang(); analyze("changed"); });
  $("kbd-toggle").addEventListener("click", toggleKeyboard);
  $("kbd-lang").addEventListener("change", () => { kbd.chosen = true; loadKeyboard($("kbd-lang").value); });
  $("keyboard").addEventListener("click", (e) => { const b = e.target.closest("button"); if (b) press(b); });
  $("keyboard").addEventListener("keydown", moveFocus);
  $("label").addEventListener("keydown", physicalKey);
  $("label").addEventListener("keypress", swallowed);
  $("label").addEventListener("beforeinput", swallowed);
  $("ui-lang").addEventListener("click", () => {
    ui = ui === "en" ? "hi" : "en";
    localStorage.setItem("akshara-ui", ui);
    applyUI();
  });
  window.addEventListener("popstate", () => { fromURL(); analyze("history"); });
  try {
    const [zr, lr] = await Promise.all([fetch("/v1/zones"), fetch("/keyboard/languages.json")]);
    zones = await zr.json();
    for (const l of await lr.json()) languages[l.tag] = l;
  } catch (e) {
    showOffline(t("offline"));
    return;
  }
  fillZones();
  fillLangs();
  fillKbdLangs();
  fromURL();
  document.body.dataset.ready = "true";
  if ($("label").value.trim()) analyze("history");
}
start();
