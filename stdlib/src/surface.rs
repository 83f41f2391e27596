//! The test surface: per test-log parser (its descriptor in `taskc_compiler::parser` names
//! its list), the files through which code can change how the test runner runs or reports
//! (hooks, plugins, configuration, interpreter start-up files) or the tests themselves. Before the hidden tests are applied, every file an agent's patch
//! changes that matches one of these globs is reverted to base (deleted when absent at
//! base), whatever the patch meant; a spec adds globs with `protect "…"`.
//!
//! Glob syntax (`taskc_compiler::glob`): `*` and `?` within one path segment, `**` for any
//! number of whole segments; a glob without `/` matches a file name at any depth, a glob with
//! `/` is anchored at the repository's root.

/// Reverted for every parser: files any Python process (test runners, helper scripts) runs
/// at start-up before any test code, and compiled Python bytecode: an unchecked hash-based
/// `.pyc` (PEP 552) in `__pycache__/` is imported instead of its source without a look at
/// it, and a sourceless `.pyc` beside no source is imported like a module (a root
/// `pytest.pyc` shadows pytest for `python3 -m pytest`). No honest patch adds bytecode.
pub const COMMON: &[&str] = &[
    "**/__pycache__/**",
    "*.pth",
    "*.pyc",
    "*.pyo",
    "sitecustomize.py",
    "usercustomize.py",
];

/// pytest: conftest files (hooks such as `pytest_runtest_makereport`), configuration files
/// (`addopts = -p plugin`; pytest ≥ 9 also reads `pytest.toml` and `.pytest.toml`; the whole file is reverted, including sections that are not
/// pytest's, since pytest reads keys from anywhere in them: TOML dotted keys, INI
/// sections), package metadata folders (`pytest11` entry points register plugins without
/// any configuration), and test modules (`test_*.py`, `*_test.py`: tests the agent edits
/// are run as they were at base), compiled extension modules (`*.so`: a root `pytest.so`
/// or `_pytest.cpython-311-x86_64-linux-gnu.so` is imported before any `.py`; no honest
/// patch adds one), and modules shadowing the runner itself (`python3 -m
/// pytest` puts the working folder first on `sys.path`: a `pytest.py`, `pytest/`, `_pytest/`,
/// `py.py` or `pluggy/` there is imported instead of the real one).
pub const PYTEST: &[&str] = &[
    ".pytest.toml",
    "**/*.dist-info/**",
    "**/*.egg-info/**",
    ".pytest.ini",
    ".pytest.toml",
    "*.so",
    "*_test.py",
    "_pytest/**",
    "conftest.py",
    "pluggy.py",
    "pluggy/**",
    "py.py",
    "pyproject.toml",
    "pytest.ini",
    "pytest.py",
    "pytest.toml",
    "pytest/**",
    "setup.cfg",
    "test_*.py",
    "tox.ini",
];

/// go test: every `_test.go` file (a new one may hold a `TestMain` that prints results);
/// the hidden patch's own test files are restored and re-applied apart from this list.
pub const GO: &[&str] = &["*_test.go"];

/// node:test, jest and vitest: configuration files (setup files, reporters, transforms are
/// named there; `package.json` holds jest's and node's settings) and test files.
pub const NODE: &[&str] = &[
    "**/__tests__/**",
    "**/test/**",
    "**/tests/**",
    ".babelrc",
    ".babelrc.*",
    "*-test.cjs",
    "*-test.js",
    "*-test.mjs",
    "*.spec.*",
    "*.test.*",
    "*_test.cjs",
    "*_test.js",
    "*_test.mjs",
    ".mocharc.*",
    ".taprc",
    "babel.config.*",
    "jest.config.*",
    "package.json",
    "test-*.cjs",
    "test-*.js",
    "test-*.mjs",
    "test.cjs",
    "test.js",
    "test.mjs",
    "vite.config.*",
    "vitest.config.*",
    "vitest.workspace.*",
];

/// cargo test / nextest: cargo configuration (a `runner` or `rustflags` there changes what
/// runs), nextest's configuration, and integration tests.
pub const CARGO: &[&str] = &[
    "**/.cargo/**",
    ".cargo/**",
    ".config/nextest.toml",
    "**/tests/**/*.rs",
    "tests/**/*.rs",
];

/// The configuration files pytest reads, by the first major version that reads each
/// (pytest 9's `_pytest.config.findpaths.CONFIG_LOADERS_BY_NAME`, checked on pytest 9.2.0:
/// `pytest.toml`, `.pytest.toml`, `pytest.ini`, `.pytest.ini`, `pyproject.toml`, `tox.ini`,
/// `setup.cfg`). [`PYTEST`] holds them all; a recipe that can install a newer major than
/// [`PYTEST_CONFIG_KNOWN_THROUGH`] must have its files checked and added here first.
pub const PYTEST_CONFIG_FILES: &[(u32, &str)] = &[
    (1, "pytest.ini"),
    (1, "tox.ini"),
    (1, "setup.cfg"),
    (6, "pyproject.toml"),
    (7, ".pytest.ini"),
    (9, "pytest.toml"),
    (9, ".pytest.toml"),
];

/// The newest pytest major whose configuration files [`PYTEST_CONFIG_FILES`] lists.
pub const PYTEST_CONFIG_KNOWN_THROUGH: u32 = 9;

/// `junit-xml`: the pytest and go lists together.
pub const JUNIT: &[&str] = &[
    ".pytest.toml",
    "**/*.dist-info/**",
    "**/*.egg-info/**",
    ".pytest.ini",
    ".pytest.toml",
    "*.so",
    "*_test.go",
    "*_test.py",
    "_pytest/**",
    "conftest.py",
    "pluggy.py",
    "pluggy/**",
    "py.py",
    "pyproject.toml",
    "pytest.ini",
    "pytest.py",
    "pytest.toml",
    "pytest/**",
    "setup.cfg",
    "test_*.py",
    "tox.ini",
];

/// phpunit and pest (`phpunit-junit`): their configuration (`<extensions>`, `bootstrap=`,
/// listeners and printers are named there), pest's `Pest.php` (uses/hooks for every test),
/// composer's autoload (`files` entries run before any test), bootstrap files and test
/// files.
pub const PHPUNIT: &[&str] = &[
    "**/tests/**",
    "*Test.php",
    "Pest.php",
    "bootstrap.php",
    "composer.json",
    "phpunit.dist.xml",
    "phpunit.xml",
    "phpunit.xml.dist",
];

/// rspec and minitest: rspec's option files (`--require`, `--format`), the helpers every
/// spec or test requires (`spec_helper.rb`, `rails_helper.rb`, `test_helper.rb`, support
/// folders), the Rakefile (`rake test` defines the run there), Ruby's `.rubocop`-free
/// loader hooks, and spec and test files.
pub const RUBY: &[&str] = &[
    "**/spec/**",
    "**/test/**",
    ".rspec",
    ".rspec-local",
    "*_spec.rb",
    "*_test.rb",
    "Gemfile",
    "Rakefile",
    "rails_helper.rb",
    "spec_helper.rb",
    "test_*.rb",
    "test_helper.rb",
];

/// Python's unittest and Django's test runner (`unittest`): test modules and packages, the
/// runner scripts, the settings modules tests run under, and packaging files that add start-up hooks.
pub const UNITTEST: &[&str] = &[
    "**/*.dist-info/**",
    "**/*.egg-info/**",
    "**/tests/**",
    "*_test.py",
    "manage.py",
    "pyproject.toml",
    "runtests.py",
    "setup.cfg",
    "test*.py",
    "tox.ini",
];
/// Maven surefire and gradle (`surefire`, `gradle`): the build files that configure the test
/// task (listeners, `testLogging`, report folders, the JVM's arguments and agents), the build
/// logic and wrapper scripts, JUnit's platform configuration (extensions auto-detected from
/// `junit-platform.properties` or `META-INF/services`) and the test sources.
pub const JVM: &[&str] = &[
    "**/META-INF/services/**",
    "**/src/test/**",
    ".mvn/**",
    "build.gradle",
    "build.gradle.kts",
    "buildSrc/**",
    "gradle.properties",
    "gradle/**",
    "gradlew",
    "init.gradle",
    "junit-platform.properties",
    "mvnw",
    "pom.xml",
    "settings.gradle",
    "settings.gradle.kts",
];

/// `dotnet test` (`dotnet-trx`): project and solution files (test adapters, loggers and
/// targets are named there), MSBuild's implicit imports, run settings and test projects'
/// sources (by the usual `*.Tests` / `*Tests` folder names).
pub const DOTNET: &[&str] = &[
    "*.csproj",
    "*.fsproj",
    "*.props",
    "*.runsettings",
    "*.sln",
    "*.targets",
    "*.vbproj",
    "**/*Tests/**",
    "*Tests.cs",
    "**/*.Tests/**",
    "Directory.Build.props",
    "Directory.Build.targets",
    "Directory.Packages.props",
    "global.json",
    "nuget.config",
    "xunit.runner.json",
];

/// playwright (`playwright-json`): the node list plus playwright's configuration (global
/// setup, reporters and projects are named there).
pub const PLAYWRIGHT: &[&str] = &[
    "**/__tests__/**",
    "**/e2e/**",
    "**/test/**",
    "**/tests/**",
    "*.spec.*",
    "*.test.*",
    "package.json",
    "playwright.config.*",
    "playwright-ct.config.*",
];

/// bun test (`bun`): bun's configuration (`[test] preload` runs code before every test
/// file), the node list's test files and `package.json`.
pub const BUN: &[&str] = &[
    "**/__tests__/**",
    "**/test/**",
    "**/tests/**",
    "*.spec.*",
    "*.test.*",
    "*_test.*",
    "bunfig.toml",
    "package.json",
];

/// dart test and flutter test (`dart-json`): the test folders, `dart_test.yaml` (tags,
/// platforms, reporters), the package's `pubspec.yaml` and flutter's
/// `flutter_test_config.dart` (runs before every test file under its folder).
pub const DART: &[&str] = &[
    "**/test/**",
    "**/test_driver/**",
    "*_test.dart",
    "dart_test.yaml",
    "flutter_test_config.dart",
    "pubspec.yaml",
];

/// php's `run-tests.php` (`phpt`): the runner itself when the repository carries it, the
/// `.phpt` tests and the `.inc` files they include, and the ini files tests are run with.
pub const PHPT: &[&str] = &["**/tests/**", "*.inc", "*.phpt", "php.ini", "run-tests.php"];

/// A plain test script scored by its exit status (`exit-status`): the test folders, where
/// such scripts and their helpers live (`hf_xet/tests/request_headers_contract.py`); a script
/// elsewhere is the spec's to `protect`.
pub const EXIT_STATUS: &[&str] = &["**/test/**", "**/tests/**"];

/// tcltest and redis' `runtest` (`tcltest`): the test folders (`all.tcl` sources every test
/// file; redis' `tests/test_helper.tcl` and `tests/support/` print the results), the
/// `*.test` files and the runner scripts.
pub const TCL: &[&str] = &["**/tests/**", "*.test", "all.tcl", "runtest", "runtest-*"];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every configuration file of every pytest major the recipes can install is on the
    /// pytest surface (and on JUnit's, which includes pytest's).
    #[test]
    fn every_pytest_configuration_file_is_on_the_surface() {
        for (since, name) in PYTEST_CONFIG_FILES {
            assert!(*since <= PYTEST_CONFIG_KNOWN_THROUGH);
            assert!(
                PYTEST.contains(name),
                "`{name}` (pytest ≥ {since}) is not in PYTEST"
            );
            assert!(
                JUNIT.contains(name),
                "`{name}` (pytest ≥ {since}) is not in JUNIT"
            );
        }
    }

    /// The python recipe's pytest versions — Debian's (the default) and the pinned example
    /// its manifest documents, and every `pytest==X` pinned in the recipe — are majors whose
    /// configuration files are known: a recipe moving to a newer pytest fails here until
    /// [`PYTEST_CONFIG_FILES`] is checked against it.
    #[test]
    fn the_python_recipes_pytest_versions_are_known() {
        let manifest = include_str!("../recipes/python.toml");
        let template = include_str!("../recipes/python.Dockerfile.tera");
        let mut majors = Vec::new();
        for text in [manifest, template] {
            for (i, _) in text.match_indices("pytest==") {
                let v: String = text[i + "pytest==".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                majors.push(v.parse::<u32>().expect("a version after pytest=="));
            }
            for (i, _) in text.match_indices("Debian's ") {
                let v: String = text[i + "Debian's ".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if let Ok(m) = v.parse::<u32>() {
                    majors.push(m);
                }
            }
        }
        assert!(
            !majors.is_empty(),
            "the python recipe names its pytest versions"
        );
        for m in majors {
            assert!(
                m <= PYTEST_CONFIG_KNOWN_THROUGH,
                "the python recipe installs pytest {m}: check which configuration files it reads and update PYTEST_CONFIG_FILES"
            );
        }
    }
}
