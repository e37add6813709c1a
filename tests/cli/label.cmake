# `amazons label` and `amazons teacher-serve` (docs/labeler.md), run as a user runs them.

set(_labels ${CMAKE_CURRENT_BINARY_DIR}/labels)
file(MAKE_DIRECTORY ${_labels})

# Bad input: one line naming it, exit code 2, before anything is asked or written.
cli_test(NAME label_ftp CODE 2 ONE_LINE_ERR ERR "only http:// and https:// URLs are supported"
         ARGS label --out ${_labels}/ftp.jsonl --url ftp://api.openai.com/v1)
cli_test(NAME label_missing_ca_file CODE 2 ONE_LINE_ERR ERR "--ca-file: File does not exist"
         ARGS label --out ${_labels}/ca.jsonl --url https://127.0.0.1:1/v1 --ca-file ${_labels}/no-such-ca.pem)
cli_test(NAME label_bad_completion_tokens CODE 2 ONE_LINE_ERR ERR "--max-completion-tokens"
         ARGS label --out ${_labels}/tokens.jsonl --max-completion-tokens -1)
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
# No server: the run fails within seconds (exit 1), saying why — with the default retries,
# which would take over a minute per label if a teacher not there at the start were retried.
cli_test(NAME label_server_down CODE 1 ONE_LINE_ERR
         ERR "amazons: error: label: cannot reach the teacher at http://127.0.0.1:1/v1/chat/completions: cannot connect: Connection refused \\(127.0.0.1:1\\)"
         ARGS label --out ${_labels}/down.jsonl --url http://127.0.0.1:1/v1 --players random random --games 1
              --candidates random:n=2 --key-env GSEARCH_UNSET_KEY)
set_tests_properties(cli.label_server_down PROPERTIES TIMEOUT 15)
# https (a build with OpenSSL): a CA file that is not one is bad input; no server, as above.
if(OpenSSL_FOUND)
  file(WRITE ${_labels}/not-a-ca.pem "not a certificate\n")
  cli_test(NAME label_bad_ca_file CODE 2 ONE_LINE_ERR ERR "the CA file .*not-a-ca.pem holds no PEM certificate"
           ARGS label --out ${_labels}/ca.jsonl --url https://127.0.0.1:1/v1 --ca-file ${_labels}/not-a-ca.pem
                --players random random --games 1 --candidates random:n=1 --key-env GSEARCH_UNSET_KEY)
  cli_test(NAME label_server_down_https CODE 1 ONE_LINE_ERR
           ERR "cannot reach the teacher at https://127.0.0.1:1/v1/chat/completions: cannot connect"
           ARGS label --out ${_labels}/down-https.jsonl --url https://127.0.0.1:1/v1 --players random random --games 1
                --candidates random:n=2 --key-env GSEARCH_UNSET_KEY)
  set_tests_properties(cli.label_server_down_https PROPERTIES TIMEOUT 15)
endif()
cli_test(NAME teacher_serve_bad_probability CODE 2 ONE_LINE_ERR ERR "--malformed" ARGS teacher-serve --malformed 2)
cli_test(NAME teacher_serve_bad_sum CODE 2 ONE_LINE_ERR ERR "add up to more than 1"
         ARGS teacher-serve --malformed 0.6 --drop 0.6)
cli_test(NAME teacher_serve_bad_rate_limited CODE 2 ONE_LINE_ERR ERR "--rate-limited: \"2\" is not a real number in \\[0, 1\\]"
         ARGS teacher-serve --rate-limited 2)
cli_test(NAME teacher_serve_bad_api_sum CODE 2 ONE_LINE_ERR ERR "API fault probabilities add up to more than 1"
         ARGS teacher-serve --rate-limited 0.6 --huge 0.6)
# The teacher's knobs: out of range, and NaN or infinite (which a plain range check lets through).
cli_test(NAME teacher_serve_bad_noise CODE 2 ONE_LINE_ERR ERR "--noise: \"-0.1\" is not a real number in \\[0, 10\\]"
         ARGS teacher-serve --noise -0.1)
cli_test(NAME teacher_serve_nan_noise CODE 2 ONE_LINE_ERR ERR "--noise: \"nan\" is not a real number in \\[0, 10\\]"
         ARGS teacher-serve --noise nan)
cli_test(NAME teacher_serve_bad_hallucination CODE 2 ONE_LINE_ERR ERR "--hallucination: \"1.5\" is not a real number in \\[0, 1\\]"
         ARGS teacher-serve --hallucination 1.5)
cli_test(NAME teacher_serve_nan_hallucination CODE 2 ONE_LINE_ERR ERR "--hallucination: \"NaN\" is not a real number"
         ARGS teacher-serve --hallucination NaN)
cli_test(NAME teacher_serve_bad_bias CODE 2 ONE_LINE_ERR ERR "--bias: \"-2\" is not a real number in \\[-1, 1\\]" ARGS teacher-serve --bias -2)
cli_test(NAME teacher_serve_inf_bias CODE 2 ONE_LINE_ERR ERR "--bias: \"inf\" is not a real number"
         ARGS teacher-serve --bias inf)
cli_test(NAME teacher_serve_bad_scale CODE 2 ONE_LINE_ERR ERR "--scale: \"0\" is not a real number in \\[0.001, 100\\]" ARGS teacher-serve --scale 0)
cli_test(NAME teacher_serve_nan_scale CODE 2 ONE_LINE_ERR ERR "--scale: \"-nan\" is not a real number"
         ARGS teacher-serve --scale -nan)
cli_test(NAME teacher_serve_nan_probability CODE 2 ONE_LINE_ERR ERR "--malformed: \"nan\" is not a real number"
         ARGS teacher-serve --malformed nan)
# Output and input paths and numbers: checked before any game is played or label asked.
cli_test(NAME label_out_is_directory CODE 2 ONE_LINE_ERR ERR "error: cannot open .*labels: Is a directory"
         ARGS label --out ${_labels} --url http://127.0.0.1:1/v1)
cli_test(NAME label_out_missing_parent CODE 2 ONE_LINE_ERR
         ERR "error: cannot open .*no_such_dir/l.jsonl: No such file or directory"
         ARGS label --out ${_labels}/no_such_dir/l.jsonl --url http://127.0.0.1:1/v1)
cli_test(NAME label_seed_negative CODE 2 ONE_LINE_ERR ERR "--seed: \"-1\" is not a whole number"
         ARGS label --out ${_labels}/seed.jsonl --seed -1)
cli_test(NAME label_temperature_nan CODE 2 ONE_LINE_ERR ERR "--temperature: \"nan\" is not a real number in \\[0, 2\\]"
         ARGS label --out ${_labels}/temperature.jsonl --temperature nan)
cli_test(NAME train_labels_dev_zero CODE 2 ONE_LINE_ERR
         ERR "error: /dev/zero:1: a line longer than 1048576 bytes; not a label file"
         ARGS train --labels /dev/zero --out ${_labels}/train-zero)
cli_test(NAME teacher_serve_no_key CODE 2 ONE_LINE_ERR ERR "GSEARCH_UNSET_KEY: the variable is not set"
         ARGS teacher-serve --key-env GSEARCH_UNSET_KEY)

# Killed with SIGKILL in the middle of a run and rerun: every label once; the key nowhere.
add_executable(label_kill_test ${CMAKE_CURRENT_LIST_DIR}/label_kill.cpp)
target_link_libraries(label_kill_test PRIVATE gsearch_amazons nlohmann_json::nlohmann_json PkgConfig::HTTPLIB
                                              gsearch_dev_flags)
add_test(NAME cli.label_kill COMMAND label_kill_test $<TARGET_FILE:amazons> ${_labels}/kill)
