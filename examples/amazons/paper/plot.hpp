// amazons/paper/plot.hpp — small SVG charts for the training curves and the reproduction table.
//
// Two chart kinds, written as standalone SVG files that any browser or document renders:
//   line_chart  one or more series over a shared x axis (loss per iteration, raw and moving
//               average, as in the paper's Fig. 7);
//   bar_chart   groups of bars with 95% intervals and an optional reference mark per bar
//               (our win rate against the paper's number, Fig. 14).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace amazons::plot {

struct Series {
  std::string name;
  std::vector<double> y;  // y[i] is plotted at x = i + 1
  std::string colour;     // an SVG colour, e.g. "#1f77b4"
  double width = 1.0;     // stroke width
};

// The trailing moving average over `window` points (the first points average what exists).
inline std::vector<double> moving_average(const std::vector<double>& y, std::size_t window) {
  std::vector<double> out(y.size());
  double sum = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    sum += y[i];
    if (i >= window) sum -= y[i - window];
    out[i] = sum / static_cast<double>(std::min(i + 1, window));
  }
  return out;
}

namespace detail {
inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}
}  // namespace detail

inline std::string line_chart(const std::string& title, const std::string& x_label,
                              const std::string& y_label, const std::vector<Series>& series) {
  const double w = 720, h = 420, left = 70, right = 20, top = 40, bottom = 50;
  std::size_t n = 1;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : series) {
    n = std::max(n, s.y.size());
    for (double v : s.y)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(lo < hi)) lo = (std::isfinite(lo) ? lo : 0) - 1, hi = lo + 2;
  const double pad = (hi - lo) * 0.05;
  lo -= pad, hi += pad;
  const auto X = [&](double i) {
    return left + (w - left - right) * (n > 1 ? i / static_cast<double>(n - 1) : 0.5);
  };
  const auto Y = [&](double v) { return top + (h - top - bottom) * (1 - (v - lo) / (hi - lo)); };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
       "fill='white'/>\n";
  o << "<text x='" << w / 2 << "' y='22' text-anchor='middle' font-size='15'>"
    << detail::escape(title) << "</text>\n";
  for (int k = 0; k <= 4; ++k) {
    const double v = lo + (hi - lo) * k / 4.0;
    o << "<line x1='" << left << "' x2='" << w - right << "' y1='" << Y(v) << "' y2='" << Y(v)
      << "' stroke='#ddd'/><text x='" << left - 6 << "' y='" << Y(v) + 4 << "' text-anchor='end'>"
      << detail::num(v) << "</text>\n";
  }
  for (int k = 0; k <= 4; ++k) {
    const double i = static_cast<double>(n - 1) * k / 4.0;
    o << "<text x='" << X(i) << "' y='" << h - bottom + 18 << "' text-anchor='middle'>"
      << detail::num(std::round(i + 1)) << "</text>\n";
  }
  o << "<text x='" << (left + w - right) / 2 << "' y='" << h - 10 << "' text-anchor='middle'>"
    << detail::escape(x_label) << "</text>\n";
  o << "<text transform='translate(16," << (top + h - bottom) / 2
    << ") rotate(-90)' text-anchor='middle'>" << detail::escape(y_label) << "</text>\n";
  int legend = 0;
  for (const auto& s : series) {
    o << "<polyline fill='none' stroke='" << s.colour << "' stroke-width='" << s.width
      << "' points='";
    // At most ~2000 points per line: keep every k-th, the file stays small.
    const std::size_t step = std::max<std::size_t>(1, s.y.size() / 2000);
    for (std::size_t i = 0; i < s.y.size(); i += step)
      if (std::isfinite(s.y[i]))
        o << detail::num(X(static_cast<double>(i))) << ',' << detail::num(Y(s.y[i])) << ' ';
    o << "'/>\n";
    const double ly = top + 14 + 16 * legend++;
    o << "<line x1='" << w - right - 150 << "' x2='" << w - right - 130 << "' y1='" << ly - 4
      << "' y2='" << ly - 4 << "' stroke='" << s.colour << "' stroke-width='2'/><text x='"
      << w - right - 125 << "' y='" << ly << "'>" << detail::escape(s.name) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

struct Bar {
  std::string label;         // under the bar
  double value = 0;          // in [0, 1]
  double low = 0, high = 0;  // the 95% interval
  double reference = -1;     // a reference value drawn as a mark (negative: none)
};

inline std::string bar_chart(const std::string& title, const std::string& y_label,
                             const std::vector<Bar>& bars, const std::string& reference_name) {
  const double bar_w = 44, gap = 26, left = 70, top = 40, bottom = 110, h = 420;
  const double w = left + 20 + static_cast<double>(bars.size()) * (bar_w + gap);
  const auto Y = [&](double v) { return top + (h - top - bottom) * (1 - v); };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
       "fill='white'/>\n";
  o << "<text x='" << w / 2 << "' y='22' text-anchor='middle' font-size='15'>"
    << detail::escape(title) << "</text>\n";
  for (int k = 0; k <= 10; k += 2) {
    const double v = k / 10.0;
    o << "<line x1='" << left << "' x2='" << w - 10 << "' y1='" << Y(v) << "' y2='" << Y(v)
      << "' stroke='" << (k == 5 ? "#999" : "#ddd") << "'/><text x='" << left - 6 << "' y='"
      << Y(v) + 4 << "' text-anchor='end'>" << k * 10 << "%</text>\n";
  }
  o << "<text transform='translate(16," << (top + h - bottom) / 2
    << ") rotate(-90)' text-anchor='middle'>" << detail::escape(y_label) << "</text>\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double x = left + gap / 2 + static_cast<double>(i) * (bar_w + gap);
    o << "<rect x='" << x << "' y='" << Y(b.value) << "' width='" << bar_w << "' height='"
      << Y(0) - Y(b.value) << "' fill='#4c78a8'/>\n";
    o << "<line x1='" << x + bar_w / 2 << "' x2='" << x + bar_w / 2 << "' y1='" << Y(b.low)
      << "' y2='" << Y(b.high) << "' stroke='black'/>\n";
    if (b.reference >= 0)
      o << "<line x1='" << x - 4 << "' x2='" << x + bar_w + 4 << "' y1='" << Y(b.reference)
        << "' y2='" << Y(b.reference) << "' stroke='#e45756' stroke-width='3'/>\n";
    o << "<text transform='translate(" << x + bar_w / 2 << "," << h - bottom + 14
      << ") rotate(40)' font-size='11'>" << detail::escape(b.label) << "</text>\n";
  }
  if (!reference_name.empty())
    o << "<line x1='" << w - 190 << "' x2='" << w - 170 << "' y1='" << top + 6 << "' y2='"
      << top + 6 << "' stroke='#e45756' stroke-width='3'/><text x='" << w - 165 << "' y='"
      << top + 10 << "'>" << detail::escape(reference_name) << "</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace amazons::plot
