"use strict";
// The akshara check page: asks /v1/analyze as the user types and shows the
// verdict, the aksharas (with the failing one and its character marked),
// each error's rule code with a plain explanation, the A-label, the
// variants and whether the name is available. English and Hindi interface.

const T = {
  en: {
    title: "Check a domain name", labelField: "Name", langField: "Language",
    hint: "Type a name in any Indian script, or its xn-- form.",
    langsField: "Languages that accept it", alabelField: "A-label",
    variantsField: "Variants (blocked when it is registered)", api: "API",
    detect: "Detect (every language of the zone)", switchTo: "हिन्दी",
    valid: "Valid", invalid: "Not valid", none: "none",
    available: "Available: it can be registered.", registered: "Already registered.",
    blocked: "Blocked by the registered name {0}.", invalidStatus: "It cannot be registered.",
    offline: "The server cannot be reached. Check your connection and try again; what you typed is kept.",
    failed: "The server could not answer: {0}", inLang: "in {0}", syllables: "Aksharas",
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
      VARIANT_LIMIT: "More than three aksharas of the name have look-alike variants."
    }
  },
  hi: {
    title: "डोमेन नाम जाँचें", labelField: "नाम", langField: "भाषा",
    hint: "किसी भी भारतीय लिपि में नाम लिखें, या उसका xn-- रूप।",
    langsField: "इसे स्वीकार करने वाली भाषाएँ", alabelField: "A-लेबल",
    variantsField: "रूपांतर (पंजीकरण के बाद अवरुद्ध)", api: "API",
    detect: "पहचानें (ज़ोन की हर भाषा)", switchTo: "English",
    valid: "मान्य", invalid: "अमान्य", none: "कोई नहीं",
    available: "उपलब्ध: इसे पंजीकृत किया जा सकता है।", registered: "पहले से पंजीकृत।",
    blocked: "पंजीकृत नाम {0} के कारण अवरुद्ध।", invalidStatus: "इसे पंजीकृत नहीं किया जा सकता।",
    offline: "सर्वर से संपर्क नहीं हो पा रहा। कनेक्शन जाँचकर फिर कोशिश करें; आपका लिखा सुरक्षित है।",
    failed: "सर्वर उत्तर नहीं दे सका: {0}", inLang: "{0} में", syllables: "अक्षर",
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
      VARIANT_LIMIT: "नाम के तीन से अधिक अक्षरों के मिलते-जुलते रूप हैं।"
    }
  }
};

const LANG_NAMES = {
  hi: ["Hindi", "हिन्दी"], mr: ["Marathi", "मराठी"], kok: ["Konkani", "कोंकणी"], ne: ["Nepali", "नेपाली"],
  sa: ["Sanskrit", "संस्कृत"], brx: ["Bodo", "बड़ो"], doi: ["Dogri", "डोगरी"], mai: ["Maithili", "मैथिली"],
  "sd-Deva": ["Sindhi (Devanagari)", "सिंधी (देवनागरी)"], bn: ["Bangla", "बांग्ला"], as: ["Assamese", "असमिया"], pa: ["Punjabi", "पंजाबी"],
  gu: ["Gujarati", "गुजराती"], or: ["Oriya", "ओड़िया"], ta: ["Tamil", "तमिल"], te: ["Telugu", "तेलुगु"],
  kn: ["Kannada", "कन्नड़"], ml: ["Malayalam", "मलयालम"],
  "sat-Deva": ["Santali (Devanagari)", "संथाली (देवनागरी)"], sat: ["Santali (Ol Chiki)", "संथाली (ओल चिकी)"],
  "ks-Deva": ["Kashmiri (Devanagari)", "कश्मीरी (देवनागरी)"], ks: ["Kashmiri", "कश्मीरी"],
  mni: ["Manipuri (Bengali script)", "मणिपुरी (बांग्ला लिपि)"], "mni-Mtei": ["Manipuri (Meetei Mayek)", "मणिपुरी (मीतै मयेक)"],
  ur: ["Urdu", "उर्दू"], sd: ["Sindhi", "सिंधी"]
};

const $ = (id) => document.getElementById(id);
let ui = localStorage.getItem("akshara-ui") === "hi" ? "hi" : "en";
let zones = [];
let last = null;   // the last analysis shown
let seq = 0;       // answers to older requests are dropped

function t(key, ...args) {
  return String(T[ui][key] ?? T.en[key]).replace(/\{(\d)\}/g, (_, i) => args[i]);
}
function langName(tag) {
  const n = LANG_NAMES[tag];
  return n ? `${n[ui === "hi" ? 1 : 0]} (${tag})` : tag;
}

function applyUI() {
  document.documentElement.lang = ui;
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  $("ui-lang").textContent = t("switchTo");
  $("ui-lang").lang = ui === "en" ? "hi" : "en";
  $("syllables").setAttribute("aria-label", t("syllables"));
  fillLangs();
  if (last) render(last);
}

function fillZones() {
  const sel = $("zone");
  sel.replaceChildren(...zones.map((z) => new Option(z.name, z.name)));
  const def = zones.find((z) => z.name === "भारत");
  if (def) sel.value = def.name;
}

function fillLangs() {
  const zone = zones.find((z) => z.name === $("zone").value);
  const sel = $("lang");
  const keep = sel.value || "auto";
  const opts = [new Option(t("detect"), "auto")];
  for (const tag of zone ? zone.languages : []) opts.push(new Option(langName(tag), tag));
  sel.replaceChildren(...opts);
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : "auto";
}

function showOffline(msg) {
  $("offline").textContent = msg;
  $("offline").hidden = false;
  $("result").hidden = true;
}

async function analyze() {
  const label = $("label").value.trim();
  const id = ++seq;
  if (label === "") { $("result").hidden = true; last = null; return; }
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
}

function render(a) {
  const res = $("result");
  res.hidden = false;
  res.dataset.valid = String(a.valid);
  res.dataset.label = a.label;
  const v = $("verdict");
  v.className = a.valid ? "ok" : "bad";
  v.textContent = (a.valid ? t("valid") : t("invalid")) + (a.lang ? " — " + t("inLang", langName(a.lang)) : "");
  const st = $("status");
  st.dataset.status = a.status;
  st.textContent = a.status === "blocked" ? t("blocked", a.blocked_by)
    : a.status === "registered" ? t("registered")
    : a.status === "available" ? t("available") : t("invalidStatus");

  // the aksharas, with the failing akshara and character marked
  const bad = new Set((a.errors || []).map((e) => e.pos));
  const chars = [...(a.ulabel || "")];
  const box = $("syllables");
  box.replaceChildren();
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
    const why = T[ui].codes[e.code] || e.message;
    li.append(code, " ", why);
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
  $("alabel").textContent = a.alabel ? a.alabel + "." + (zones.find((z) => z.name === a.zone)?.alabel ?? "") : "—";
  $("variants").textContent = (a.variants && a.variants.length) ? a.variants.join(", ") : t("none");
}

let timer;
function schedule() { clearTimeout(timer); timer = setTimeout(analyze, 120); }

async function start() {
  applyUI();
  $("form").addEventListener("submit", (e) => { e.preventDefault(); analyze(); });
  $("label").addEventListener("input", schedule);
  $("zone").addEventListener("change", () => { fillLangs(); analyze(); });
  $("lang").addEventListener("change", analyze);
  $("ui-lang").addEventListener("click", () => {
    ui = ui === "en" ? "hi" : "en";
    localStorage.setItem("akshara-ui", ui);
    applyUI();
  });
  try {
    const resp = await fetch("/v1/zones");
    zones = await resp.json();
  } catch (e) {
    showOffline(t("offline"));
    return;
  }
  fillZones();
  fillLangs();
  document.body.dataset.ready = "true";
  if ($("label").value.trim()) analyze();
}
start();
