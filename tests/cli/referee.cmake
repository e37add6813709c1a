# The independent referee (tools/referee.py): plain-Python Amazons rules that judge every move
# an agent plays through `amazons engine`, and its own move-generator self-test (perft(2)).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME cli.referee COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec uct:iters=50 --games 2)
  # On a clock the referee keeps (input and output included): no forfeit on time by either
  # engine (invader and ab both search the time they are given).
  add_test(NAME cli.referee_clock COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec invader --opponent-spec ab --clock 2+0.1 --games 2)
  # One build against another (--opponent-amazons): a binary that cannot start is named in a
  # one-line error before any game.
  add_test(NAME cli.referee_bad_binary COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random --opponent-spec random
           --opponent-amazons ${PROJECT_SOURCE_DIR}/no-such-amazons --games 1)
  set_tests_properties(cli.referee_bad_binary PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: cannot start .*no-such-amazons: not an executable file")
  add_test(NAME cli.referee_opponent_binary_alone COMMAND ${Python3_EXECUTABLE}
           ${PROJECT_SOURCE_DIR}/tools/referee.py --amazons $<TARGET_FILE:amazons> --spec random
           --opponent-amazons $<TARGET_FILE:amazons> --games 1)
  set_tests_properties(cli.referee_opponent_binary_alone PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --opponent-amazons needs --opponent-spec")
  # From another start (--fen): two games on the 8x8 board, every move judged by the
  # referee's own rules for that board; a FEN it cannot read is a one-line error.
  add_test(NAME cli.referee_fen COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec invader:iters=200
           --fen "2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1" --games 2)
  set_tests_properties(cli.referee_fen PROPERTIES PASS_REGULAR_EXPRESSION
                       "engine invader:iters=200: 2 wins, 0 losses of 2 games")
  add_test(NAME cli.referee_bad_fen COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random --fen "2q2q2/8/q6k/8 w" --games 1)
  set_tests_properties(cli.referee_bad_fen PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --fen: bad FEN '2q2q2/8/q6k/8 w': 'k' is not Q, q,")
  # From an opening book (--book): pair p starts from the book's position p mod its size, as
  # `amazons match --book` takes them; the records name each game's start, and `amazons
  # replay` replays them from it. A book the referee cannot read is a one-line error naming
  # the file and line.
  add_test(NAME cli.referee_book COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec invader:iters=200
           --book ${PROJECT_SOURCE_DIR}/examples/amazons/books/8x8.txt --games 4 --jobs 2
           --records ${CMAKE_CURRENT_BINARY_DIR}/referee_book.jsonl)
  set_tests_properties(cli.referee_book PROPERTIES PASS_REGULAR_EXPRESSION
                       "engine invader:iters=200: 4 wins, 0 losses of 4 games")
  add_test(NAME cli.referee_book_replay COMMAND $<TARGET_FILE:amazons> replay
           ${CMAKE_CURRENT_BINARY_DIR}/referee_book.jsonl)
  set_tests_properties(cli.referee_book_replay PROPERTIES DEPENDS cli.referee_book
                       PASS_REGULAR_EXPRESSION "games replayed: every move legal")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/referee_bad_book.txt
       "# a book with a bad line\n2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1\n2q2q2/8/q6k/8 w\n")
  add_test(NAME cli.referee_bad_book COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random
           --book ${CMAKE_CURRENT_BINARY_DIR}/referee_bad_book.txt --games 1)
  set_tests_properties(cli.referee_bad_book PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --book: .*referee_bad_book.txt:3: bad FEN")
  add_test(NAME cli.referee_missing_book COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random --book /no-such-dir/book.txt --games 1)
  set_tests_properties(cli.referee_missing_book PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --book: cannot read /no-such-dir/book.txt")
  # A sequential test over the pairs stops the match once it decides (greedy against random
  # play wins about every pair: H1 after 8 pairs won), and --records appends every game,
  # which `amazons replay` then checks move by move.
  add_test(NAME cli.referee_sprt_records COMMAND ${Python3_EXECUTABLE}
           ${PROJECT_SOURCE_DIR}/tools/referee.py --amazons $<TARGET_FILE:amazons> --spec greedy
           --sprt elo0=0,elo1=200 --games 60 --jobs 2
           --records ${CMAKE_CURRENT_BINARY_DIR}/referee_records.jsonl)
  set_tests_properties(cli.referee_sprt_records PROPERTIES PASS_REGULAR_EXPRESSION
                       "sprt elo0=0 elo1=200: H1 accepted after [0-9]+ pairs")
  add_test(NAME cli.referee_records_replay COMMAND $<TARGET_FILE:amazons> replay
           ${CMAKE_CURRENT_BINARY_DIR}/referee_records.jsonl)
  set_tests_properties(cli.referee_records_replay PROPERTIES DEPENDS cli.referee_sprt_records
                       PASS_REGULAR_EXPRESSION "games replayed: every move legal")
  add_test(NAME cli.referee_bad_sprt COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random --sprt elo0=10,elo1=5 --games 2)
  set_tests_properties(cli.referee_bad_sprt PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --sprt 'elo0=10,elo1=5': elo0 \\(10\\) must be below elo1 \\(5\\)")
  add_test(NAME cli.referee_bad_records COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --amazons $<TARGET_FILE:amazons> --spec random --records /no-such-dir/games.jsonl --games 2)
  set_tests_properties(cli.referee_bad_records PROPERTIES PASS_REGULAR_EXPRESSION
                       "referee.py: error: --records: cannot open /no-such-dir/games.jsonl for appending")
  add_test(NAME cli.referee_selftest COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/referee.py
           --selftest)
else()
  message(STATUS "Python3 not found: cli.referee and cli.referee_selftest are not registered")
endif()
