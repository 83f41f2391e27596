//! Every diagnostic code taskc can emit. Codes are stable: never renumber, only add.
//! `docs/diagnostics.md` explains each one; a test keeps the two in step.

use crate::diagnostic::Severity;

macro_rules! codes {
    ($( $variant:ident = $code:literal, $name:literal, $sev:ident, $summary:literal; )*) => {
        /// A stable diagnostic code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $variant, )* }

        impl Code {
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable code, e.g. `E0200`.
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $code, )* }
            }

            /// A short kebab-case name, e.g. `unknown-field`.
            pub fn name(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            pub fn severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$sev, )* }
            }

            /// One line on what the code means.
            pub fn summary(self) -> &'static str {
                match self { $( Code::$variant => $summary, )* }
            }

            pub fn from_code(s: &str) -> Option<Code> {
                match s { $( $code => Some(Code::$variant), )* _ => None }
            }
        }
    };
}

codes! {
    // E01xx: reading and syntax
    InvalidUtf8        = "E0100", "invalid-utf8",        Error, "the file is not valid UTF-8";
    EmptyFile          = "E0101", "empty-file",          Error, "the file holds no task";
    NulByte            = "E0102", "nul-byte",            Error, "the file contains a NUL byte";
    FileTooLarge       = "E0103", "file-too-large",      Error, "the file is larger than taskc reads";
    UnexpectedToken    = "E0104", "unexpected-token",    Error, "the parser found something it did not expect here";
    UnterminatedString = "E0105", "unterminated-string", Error, "a string is not closed";
    UnclosedBlock      = "E0106", "unclosed-block",      Error, "a `{`, `[` or `(` is never closed";
    UnexpectedClose    = "E0107", "unexpected-close",    Error, "a `}`, `]` or `)` closes nothing";
    NestingTooDeep     = "E0108", "nesting-too-deep",    Error, "blocks or lists are nested deeper than taskc allows";
    InvalidEscape      = "E0109", "invalid-escape",      Error, "a string contains an unknown escape sequence";

    // E02xx: structure of the task
    UnknownField       = "E0200", "unknown-field",       Error, "a statement names a field this block does not have";
    DuplicateField     = "E0201", "duplicate-field",     Error, "a field that may appear once appears twice";
    MissingField       = "E0202", "missing-field",       Error, "a required field is missing";
    InvalidValue       = "E0203", "invalid-value",       Error, "a field's value has the wrong shape or type";
    DuplicateName      = "E0204", "duplicate-name",      Error, "two repositories (or tasks) share a name";
    UnknownRepository  = "E0205", "unknown-repository",  Error, "a name refers to no repository of the task";
    InvalidName        = "E0206", "invalid-name",        Error, "a name is not a valid identifier";
    UnknownKeyword     = "E0207", "unknown-keyword",     Error, "a value is not one of the words this field accepts";
    TaskCount          = "E0208", "task-count",          Error, "a spec file must hold exactly one `task` block";
    AllowUnknownCode   = "E0209", "allow-unknown-code",  Error, "an `allow` names no warning code";
    AllowMissingReason = "E0210", "allow-missing-reason", Error, "an `allow` gives no reason";

    // E03xx: sources and files
    BaseNotFullSha     = "E0300", "base-not-full-sha",   Error, "a base commit is not a full 40-hex SHA";
    FileNotFound       = "E0301", "file-not-found",      Error, "a file or folder named by the spec does not exist";
    PathEscapes        = "E0302", "path-escapes",        Error, "a path leaves the spec's folder";
    MissingBase        = "E0303", "missing-base",        Error, "a git or bundle source has no base commit";
    FileUnreadable     = "E0304", "file-unreadable",     Error, "a file named by the spec cannot be read as text";
    BaseNotInSource    = "E0305", "base-not-in-source",  Error, "the source holds no commit `base`";
    BaseUnreadable     = "N0306", "base-unreadable",     Note,  "the repository cannot be read at base here: checks against the base were skipped";
    InvalidGlob        = "E0310", "invalid-glob",        Error, "a `protect` glob cannot name files inside the repository";

    // E04xx: patches
    InvalidPatch       = "E0400", "invalid-patch",       Error, "a patch file is not a valid unified diff";
    TestPatchTouchesCode = "W0401", "test-patch-touches-code", Warning, "a hidden test patch changes files that are not tests";
    GoldTouchesOnlyTests = "W0402", "gold-touches-only-tests", Warning, "a gold patch changes only test files";
    EmptyPatch         = "E0403", "empty-patch",         Error, "a patch file changes nothing";
    PatchDoesNotApply  = "E0404", "patch-does-not-apply", Error, "a hunk of a patch does not match the file at base";
    PatchFileMissing   = "E0405", "patch-file-missing",  Error, "a patch changes, deletes or renames a file that does not exist at base";
    PatchFileExists    = "E0406", "patch-file-exists",   Error, "a patch creates a file that already exists at base";
    PatchColourCodes   = "E0407", "patch-colour-codes",  Error, "a patch file was saved with terminal colour codes";

    // E05xx: repositories and their graph
    TooFewTargets      = "E0500", "too-few-targets",     Error, "joint verification needs at least two target repositories";
    SingleTarget       = "W0501", "single-target",       Warning, "the task has fewer than two target repositories";
    UsesCycle          = "E0502", "uses-cycle",          Error, "`uses` edges form a cycle";
    ContextScored      = "E0503", "context-scored",      Error, "a context repository has a gold patch or tests";
    TargetIncomplete   = "E0504", "target-incomplete",   Error, "a target repository lacks a gold patch or a test block";
    SelfUse            = "E0505", "self-use",            Error, "a repository `uses` itself";

    // E06xx: relaxations and expectations
    DropUnknownFile    = "E0600", "drop-unknown-file",   Error, "a `drop` names a test in a file the hidden test patch does not touch";
    EditTextNotFound   = "E0601", "edit-text-not-found", Error, "an `edit`'s text does not occur in the added lines of the file";
    EditTextAmbiguous  = "E0602", "edit-text-ambiguous", Error, "an `edit`'s text occurs more than once in the added lines of the file";
    RelaxMissingRule   = "E0603", "relax-missing-rule",  Error, "a relaxation has no `rule`";
    RelaxMissingReason = "E0604", "relax-missing-reason", Error, "a relaxation has no `because`";
    EditUnknownFile    = "E0605", "edit-unknown-file",   Error, "an `edit` names a file the hidden test patch does not touch";
    ExpectDropped      = "E0606", "expect-dropped",      Error, "a test is both expected and dropped";
    RelaxNote          = "N0607", "relax-note",          Note,  "a relaxation kept as free text (an imported note): review it, and write it as a typed `drop` or `edit` where it maps onto one";

    // E07xx: environments and parsers
    UnknownRecipe      = "E0700", "unknown-recipe",      Error, "the environment names no stdlib recipe";
    UnknownParam       = "E0701", "unknown-param",       Error, "a recipe parameter the recipe does not declare";
    ParamType          = "E0702", "param-type",          Error, "a recipe parameter has the wrong type";
    MissingParam       = "E0703", "missing-param",       Error, "a required recipe parameter is missing";
    UnknownParser      = "E0704", "unknown-parser",      Error, "a test block names no known log parser";
    ParamUnsafe        = "E0705", "param-unsafe",        Error, "a recipe parameter's value cannot be written into the recipe as one safe word";
    SelectWithoutIds   = "E0710", "select-without-ids",  Error, "a `select` template does not contain `{ids}` exactly once";
    SelectNotNeeded    = "E0711", "select-not-needed",   Error, "a `select` template is given for a parser taskc narrows itself";

    // W08xx: lints
    PromptLeak         = "W0800", "prompt-leak",         Warning, "the prompt names an identifier that only the gold patch introduces";

    // E09xx: lock files
    StaleLock          = "W0900", "stale-lock",          Warning, "the lock file was written for other inputs; re-run `taskc verify`";
    InvalidLock        = "E0901", "invalid-lock",        Error, "the lock file cannot be read";

    // E10xx: collecting an agent's workspace (`taskc collect`)
    CollectUnreadable      = "E1000", "collect-unreadable",       Error, "a workspace folder or file cannot be read";
    WorkspaceRecordMissing = "E1001", "workspace-record-missing", Error, "the folder has no .taskc-workspace.json record";
    WorkspaceRecordInvalid = "E1002", "workspace-record-invalid", Error, "the workspace record cannot be read";
    CollectRepoMissing     = "E1003", "collect-repo-missing",     Error, "a recorded repository is missing from the workspace";
    CollectBaseMissing     = "E1004", "collect-base-missing",     Error, "a repository no longer holds its recorded base commit";
    CollectGitFailed       = "E1005", "collect-git-failed",       Error, "git failed while collecting";
    CollectNotUtf8         = "E1006", "collect-not-utf8",         Error, "a collected change is not UTF-8 text";

    // E11xx: importing other benchmarks' tasks (`taskc import`)
    ImportFileMissing  = "E1100", "import-file-missing", Error, "a file the imported case needs does not exist or cannot be read";
    ImportSyntax       = "E1101", "import-syntax",       Error, "a YAML or JSON file of the imported case does not parse";
    ImportField        = "E1102", "import-field",        Error, "a field of the imported case is missing or has the wrong type";
    ImportRole         = "E1103", "import-role",         Error, "a repository's role is not one the importer knows";
    ImportProfile      = "E1104", "import-profile",      Error, "a test profile the importer cannot read";
    ImportPatch        = "E1105", "import-patch",        Error, "a patch of the imported case does not parse or cannot be kept faithfully";
    ImportOutExists    = "E1106", "import-out-exists",   Error, "the output folder already exists (pass --force to replace it)";
    ImportSpecInvalid  = "E1107", "import-spec-invalid", Error, "the generated spec does not check clean";
    ImportNote         = "W1108", "import-note",         Warning, "something was imported as a note a curator should review";
    ImportEnvironment  = "E1109", "import-environment",  Error, "the case's environment cannot be expressed as a taskc recipe";

    // E12xx: exporting to Harbor task folders and collecting Harbor jobs
    ExportLockMissing  = "E1200", "export-lock-missing", Error, "the spec has no readable lock: there is no oracle to export";
    ExportLockStale    = "E1201", "export-lock-stale",   Error, "the spec's lock is stale: the exported grader would use an old oracle";
    ExportOutExists    = "E1202", "export-out-exists",   Error, "a task folder to write already exists (pass --force to replace it)";
    ExportUnsupported  = "E1203", "export-unsupported",  Error, "the task uses something the exported exported grader cannot reproduce";
    ExportFailed       = "E1204", "export-failed",       Error, "the task folders could not be built or written";
    HarborJobUnreadable = "E1205", "harbor-job-unreadable", Error, "the Harbor job folder cannot be read";

    // E13xx: services beside the tests
    UnknownService     = "E1300", "unknown-service",     Error, "a repository names a service the task does not declare";
    DuplicateService   = "E1301", "duplicate-service",   Error, "two services share a name";
    DuplicateHostname  = "E1302", "duplicate-hostname",  Error, "two services of one test run share a hostname";
    InvalidHostname    = "E1303", "invalid-hostname",    Error, "a service's hostname (or name) is not a DNS label";
    InvalidPort        = "E1304", "invalid-port",        Error, "a service port is not a TCP port number (1-65535)";
    InvalidLimit       = "E1305", "invalid-limit",       Error, "a service's memory, cpus or readiness timeout is out of range";
    InvalidServiceEnv  = "E1306", "invalid-service-env", Error, "a service's environment variable has an invalid name or value";
    ServiceInContext   = "E1307", "service-in-context",  Error, "a context repository declares or names a service (it has no test runs)";
    UnusedService      = "W1300", "unused-service",      Warning, "a task-level service no target repository names: it never starts";
    // E16xx: Rust tasks and new users' first runs
    PromptLeakUnchecked = "N1600", "prompt-leak-unchecked", Note, "the prompt names an identifier a gold patch adds, but a repository could not be read at base to tell whether it is new";
    // E14xx: importing WideSWE as it is (checkouts, runners, image recipes)
    ImportNoParser     = "E1400", "import-no-parser",    Error, "a test profile's runner has no parser in this taskc";
    // E113x/W113x: servers a WideSWE case starts inside its test container
    ImportServiceMapped   = "W1130", "import-service-mapped",   Warning, "a server the case starts inside its test container is declared as a `service` beside the tests";
    ImportServiceUnmapped = "W1131", "import-service-unmapped", Warning, "something the case does to a server it starts inside its test container is not done by the declared service";
    // E17xx: named images, the image map, toolchain versions
    ImageUnresolved    = "E1700", "image-unresolved",    Error, "a named image is neither on the engine, pullable, nor mapped to a stand-in by `[images.map]`";
    UnsupportedChoice  = "E1701", "unsupported-choice",  Error, "a recipe parameter names a version (or other choice) the recipe does not offer";
    // E18xx: base images pulled by digest and locked
    BaseTagMoved       = "E1800", "base-tag-moved",      Error, "a base image's tag names another digest in its registry than the one the lock recorded";
    BasePinUnavailable = "E1801", "base-pin-unavailable", Error, "a base image the lock pins by digest can be pulled neither by digest nor found on the engine";
    // E191x/W191x: named build contexts of a Dockerfile (`contexts { … }`)
    DuplicateContext   = "E1910", "duplicate-context",   Error, "two named build contexts of one Dockerfile share a name";
    ContextIsStage     = "E1911", "context-is-stage",    Error, "a named build context has the name of a build stage of its Dockerfile";
    InvalidContext     = "E1912", "invalid-context",     Error, "a named build context is not `dir(\"…\")`, `image(\"…\")` or `repo(<name>)`";
    UnknownFromName    = "W1910", "unknown-from-name",   Warning, "a `--from=` names neither a build stage nor a named context, so the builder reads it as an image from Docker Hub";
    UnusedContext      = "W1911", "unused-context",      Warning, "a named build context no `COPY --from=` or `FROM` of its Dockerfile reads";
    // E193x: the exported Harbor grader's trial isolation
    HarborTestUser     = "E1930", "harbor-test-user",    Error, "the exported grader could not draw this trial's test uid or give it to `taskc-test`";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_prefixed_by_severity() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {}", c.as_str());
            let want = match c.severity() {
                Severity::Error => 'E',
                Severity::Warning => 'W',
                Severity::Note => 'N',
            };
            assert!(c.as_str().starts_with(want), "{} prefix", c.as_str());
            assert_eq!(Code::from_code(c.as_str()), Some(*c));
        }
    }
}
