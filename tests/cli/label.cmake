# `amazons label` and `amazons teacher-serve` (docs/labeler.md), run as a user runs them.

set(_labels ${CMAKE_CURRENT_BINARY_DIR}/labels)
file(MAKE_DIRECTORY ${_labels})

# Bad input: one line naming it, exit code 2, before anything is asked or written.
cli_test(NAME label_https CODE 2 ONE_LINE_ERR ERR "https is not supported; run a local TLS proxy"
         ARGS label --out ${_labels}/https.jsonl --url https://api.openai.com/v1)
cli_test(NAME label_bad_players CODE 2 ONE_LINE_ERR ERR "unknown agent \"mcts\""
         ARGS label --out ${_labels}/players.jsonl --players mcts random)
cli_test(NAME label_bad_candidates CODE 2 ONE_LINE_ERR ERR "unknown candidate source \"mcts\""
         ARGS label --out ${_labels}/candidates.jsonl --candidates mcts:n=3)
file(WRITE ${_labels}/damaged.jsonl
  "{\"fen\":\"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1\",\"move\":\"d1-d6/g9\",\"move_score\":0.5,"
  "\"place_score\":0.5,\"teacher\":\"m@http://127.0.0.1:1/v1/chat/completions\"}\nnot json\n")
cli_test(NAME label_damaged_file CODE 2 ONE_LINE_ERR ERR "damaged.jsonl:2: not a label \\(not JSON\\)"
         ARGS label --out ${_labels}/damaged.jsonl --url http://127.0.0.1:1/v1)
# Another program's file as --out: refused, and not cut (tests/amazons/label_store.cpp checks
# the bytes are left as they were).
file(WRITE ${_labels}/config.json "{\"threads\": 4}")
cli_test(NAME label_not_a_label_file CODE 2 ONE_LINE_ERR
         ERR "config.json:1: the last line has no line end and is not a label cut short"
         ARGS label --out ${_labels}/config.json --url http://127.0.0.1:1/v1)
# No server: the run stops after a few failed labels in a row (exit 1), saying why.
cli_test(NAME label_server_down CODE 1 ONE_LINE_ERR ERR "3 labels in a row failed; the last: cannot connect"
         OUT "labels +0 written"
         ARGS label --out ${_labels}/down.jsonl --url http://127.0.0.1:1/v1 --players random random --games 1
              --candidates random:n=2 --retries 0 --give-up-after 3 --connections 1 --key-env GSEARCH_UNSET_KEY)
cli_test(NAME teacher_serve_bad_probability CODE 2 ONE_LINE_ERR ERR "--malformed" ARGS teacher-serve --malformed 2)
cli_test(NAME teacher_serve_bad_sum CODE 2 ONE_LINE_ERR ERR "add up to more than 1"
         ARGS teacher-serve --malformed 0.6 --drop 0.6)
# The teacher's knobs: out of range, and NaN or infinite (which CLI::Range alone lets through).
cli_test(NAME teacher_serve_bad_noise CODE 2 ONE_LINE_ERR ERR "--noise: Value -0.1 not in range \\[0, 10\\]"
         ARGS teacher-serve --noise -0.1)
cli_test(NAME teacher_serve_nan_noise CODE 2 ONE_LINE_ERR ERR "--noise: Value nan is not a finite number"
         ARGS teacher-serve --noise nan)
cli_test(NAME teacher_serve_bad_hallucination CODE 2 ONE_LINE_ERR ERR "--hallucination: Value 1.5 not in range"
         ARGS teacher-serve --hallucination 1.5)
cli_test(NAME teacher_serve_nan_hallucination CODE 2 ONE_LINE_ERR ERR "--hallucination: Value NaN is not a finite number"
         ARGS teacher-serve --hallucination NaN)
cli_test(NAME teacher_serve_bad_bias CODE 2 ONE_LINE_ERR ERR "--bias: Value -2 not in range" ARGS teacher-serve --bias -2)
cli_test(NAME teacher_serve_inf_bias CODE 2 ONE_LINE_ERR ERR "--bias: Value inf is not a finite number"
         ARGS teacher-serve --bias inf)
cli_test(NAME teacher_serve_bad_scale CODE 2 ONE_LINE_ERR ERR "--scale: Value 0 not in range" ARGS teacher-serve --scale 0)
cli_test(NAME teacher_serve_nan_scale CODE 2 ONE_LINE_ERR ERR "--scale: Value -nan is not a finite number"
         ARGS teacher-serve --scale -nan)
cli_test(NAME teacher_serve_nan_probability CODE 2 ONE_LINE_ERR ERR "--malformed: Value nan is not a finite number"
         ARGS teacher-serve --malformed nan)
cli_test(NAME teacher_serve_no_key CODE 2 ONE_LINE_ERR ERR "GSEARCH_UNSET_KEY: the variable is not set"
         ARGS teacher-serve --key-env GSEARCH_UNSET_KEY)

# Killed with SIGKILL in the middle of a run and rerun: every label once; the key nowhere.
add_executable(label_kill_test ${CMAKE_CURRENT_LIST_DIR}/label_kill.cpp)
target_link_libraries(label_kill_test PRIVATE gsearch_amazons nlohmann_json::nlohmann_json PkgConfig::HTTPLIB
                                              gsearch_dev_flags)
add_test(NAME cli.label_kill COMMAND label_kill_test $<TARGET_FILE:amazons> ${_labels}/kill)
