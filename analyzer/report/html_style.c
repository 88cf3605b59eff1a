/* SPDX-License-Identifier: MIT */
/*
 * html_style.c - the HTML report's style sheet, inlined in every page.
 */
#include "analyzer/report/html_internal.h"

const char html_style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:0 auto;max-width:1100px;padding:16px 24px;color:#222}\n"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;"
	"margin:18px 0 6px}\n"
	".cmd{font-family:monospace;background:#f5f5f5;padding:4px 8px;"
	"overflow-wrap:anywhere}.meta{color:#555}\n"
	"#verdict .box{border-left:5px solid #c44e52;background:#fbf1f1;"
	"padding:8px 12px}#verdict .ok{border-color:#2e9d5b;background:#f0f8f3}\n"
	"table{border-collapse:collapse;width:100%;margin:4px 0 8px}"
	"th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;"
	"vertical-align:top}th{background:#fafafa}td.n,th.n{text-align:right;"
	"white-space:nowrap}td{overflow-wrap:anywhere}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#333}svg .tick{fill:#666}\n"
	".legend .key{margin-right:14px;white-space:nowrap}.legend i{display:"
	"inline-block;width:11px;height:11px;margin-right:4px;border:1px solid "
	"#bbb;vertical-align:-1px}\n"
	".none,.more{color:#777;font-style:italic}\n"
	"details{margin:12px 0}summary{cursor:pointer;font-weight:600}\n"
	"footer{margin-top:32px;color:#888;font-size:12px}\n";
