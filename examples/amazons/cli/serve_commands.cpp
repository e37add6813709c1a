// amazons serve — a board in the browser: play against any agent, set up a position, step
// through a records file, see the engine's analysis.
//
//   amazons serve [--port P] [--host H] [--agent SPEC]
//
// Serves one self-contained page (cli/board_page.hpp: no CDN, works offline) and a small JSON
// API that the page calls; the rules, the agents and the records checks are the command's own.
//   POST /api/state {fen}: the position (fen, player to move, legal moves, result).
//   POST /api/play {fen, move}: the position after the move (or an error).
//   POST /api/go {fen, agent}: the agent's move, line, value and root statistics.
//   POST /api/records {text}: the games of a records file (amazons match --records).
// Bound to 127.0.0.1 by default; --port 0 picks a free port. The first line on stdout is the
// address ("amazons serve: http://127.0.0.1:PORT/"). Ctrl-C ends it.
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "amazons/players/agents.hpp"
#include "cli/board_page.hpp"
#include "cli/command.hpp"

namespace amazons::cli {
namespace {

using nlohmann::json;

json state_json(const Position& pos) {
  json legal = json::array();
  gsearch::MoveListOf<Position> moves;
  if (!pos.is_terminal()) pos.legal_moves(moves);
  for (const Move& m : moves) legal.push_back(pos.move_to_string(m));
  json out = {{"fen", pos.fen()},
              {"to_move", pos.to_move() == kWhite ? "white" : "black"},
              {"legal", legal},
              {"over", pos.is_terminal()}};
  if (pos.is_terminal()) out["winner"] = pos.result(kWhite) > 0 ? "white" : "black";
  return out;
}

void reply_error(httplib::Response& res, const std::string& message) {
  res.status = 400;
  res.set_content(json{{"error", message}}.dump(), "application/json");
}

// The request's JSON body, or a 400 answer naming what is wrong.
bool parse_body(const httplib::Request& req, httplib::Response& res, json& body) {
  try {
    body = json::parse(req.body);
    if (!body.is_object()) throw std::invalid_argument("the body is not a JSON object");
    return true;
  } catch (const std::exception& e) {
    reply_error(res, std::string("bad request: ") + e.what());
    return false;
  }
}

Position position_of(const json& body) {
  if (!body.contains("fen") || !body["fen"].is_string())
    throw std::invalid_argument("the request has no \"fen\" string");
  return Position::from_fen(body["fen"].get<std::string>());
}

}  // namespace

void add_serve_commands(CLI::App& app) {
  struct Opts {
    std::string host = "127.0.0.1", agent = "invader:ms=500";
    int port = 8080;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("serve", "Serve a board in the browser: play, set up, replay");
  add_number(*cmd, "--port,-p", o->port, "Port to listen on (0: any free port)", 0, 65535);
  cmd->add_option("--host", o->host, "Address to bind (default 127.0.0.1: this machine only)");
  cmd->add_option("--agent,-a", o->agent, "The page's default agent spec");
  cmd->callback([o] {
    (void)make_agent(o->agent);  // a bad default spec fails before serving
    httplib::Server server;
    server.set_payload_max_length(std::size_t{32} << 20);  // a records file
    server.Get("/", [o](const httplib::Request&, httplib::Response& res) {
      std::string agent;  // as an HTML attribute value
      for (char c : o->agent)
        agent += c == '&'   ? "&amp;"
                 : c == '<' ? "&lt;"
                 : c == '>' ? "&gt;"
                 : c == '"' ? "&quot;"
                            : std::string(1, c);
      std::string page = kBoardPage;
      page.replace(page.find("@AGENT@"), 7, agent);
      res.set_content(page, "text/html; charset=utf-8");
    });
    const auto api = [&server](const char* path, auto handler) {
      server.Post(path, [handler](const httplib::Request& req, httplib::Response& res) {
        json body;
        if (!parse_body(req, res, body)) return;
        try {
          res.set_content(handler(body).dump(), "application/json");
        } catch (const std::exception& e) {  // NotationError, SpecError, BadInput, ...
          reply_error(res, e.what());
        }
      });
    };
    api("/api/state", [](const json& body) { return state_json(position_of(body)); });
    api("/api/play", [](const json& body) {
      Position pos = position_of(body);
      if (!body.contains("move") || !body["move"].is_string())
        throw std::invalid_argument("the request has no \"move\" string");
      if (pos.is_terminal()) throw std::invalid_argument("the game is over");
      pos.apply(pos.parse_move(body["move"].get<std::string>()));
      return state_json(pos);
    });
    api("/api/go", [o](const json& body) {
      const Position pos = position_of(body);
      if (pos.is_terminal()) throw std::invalid_argument("the game is over");
      const std::string spec = body.contains("agent") && body["agent"].is_string()
                                   ? body["agent"].get<std::string>()
                                   : o->agent;
      auto agent = make_agent(spec);
      agent->reset(static_cast<std::uint64_t>(pos.turns_played()) + 1);
      const Move m = agent->choose(pos);
      const SearchInfo& info = agent->info();
      json line = json::array(), children = json::array();
      Position p = pos;
      for (const Move& x : info.pv) {
        if (p.is_terminal() || !gsearch::is_legal(p, x)) break;
        line.push_back(p.move_to_string(x));
        p.apply(x);
      }
      // The agents' root statistics, "  MOVE  visits N  value V" per line.
      static const std::regex row(R"(^\s*(\S+)\s+visits\s+(\d+)\s+value\s+(\S+)\s*$)");
      std::istringstream details(info.details);
      for (std::string text; std::getline(details, text);) {
        std::smatch mm;
        if (std::regex_match(text, mm, row))
          children.push_back({{"move", mm[1].str()},
                              {"visits", std::stoull(mm[2].str())},
                              {"value", std::stod(mm[3].str())}});
      }
      return json{{"move", pos.move_to_string(m)},
                  {"agent", agent->name()},
                  {"pv", line},
                  {"value", info.value},
                  {"iterations", info.iterations},
                  {"seconds", info.seconds},
                  {"children", children}};
    });
    api("/api/records", [](const json& body) {
      if (!body.contains("text") || !body["text"].is_string())
        throw std::invalid_argument("the request has no \"text\" string");
      json games = json::array();
      std::istringstream in(body["text"].get<std::string>());
      std::size_t n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.empty()) continue;
        const json j = check_record("records", n, line);  // legal moves, the result they give
        games.push_back({{"start", j["start"]},
                         {"moves", j["moves"]},
                         {"result", j["result"]},
                         {"white", j.value("white", "")},
                         {"black", j.value("black", "")}});
      }
      if (games.empty()) throw std::invalid_argument("no game records in the file");
      return json{{"games", games}};
    });
    const int port = o->port == 0 ? server.bind_to_any_port(o->host)
                                  : (server.bind_to_port(o->host, o->port) ? o->port : -1);
    if (port <= 0)
      throw BadInput("serve: cannot listen on " + o->host + ":" + std::to_string(o->port));
    std::printf("amazons serve: http://%s:%d/\n", o->host.c_str(), port);
    std::fflush(stdout);
    server.listen_after_bind();
  });
}

}  // namespace amazons::cli
