//! A failed exec credential plugin in words: its command and what it said on stderr, not the
//! library's `Output { status: …, stdout: [bytes], stderr: [bytes] }`.

use kube::client::AuthError;

/// The failed credential plugin's story, when `error` (or one of its causes) is that failure.
pub(super) fn describe(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut next = Some(error);
    while let Some(e) = next {
        let auth = match e.downcast_ref::<kube::Error>() {
            Some(kube::Error::Auth(auth)) => Some(auth),
            _ => e.downcast_ref::<AuthError>(),
        };
        if let Some(AuthError::AuthExecRun { cmd, out }) = auth {
            return Some(in_words(cmd, out));
        }
        next = e.source();
    }
    None
}

/// At most this many characters of the plugin's stderr are shown.
const STDERR_LIMIT: usize = 400;

fn in_words(cmd: &str, out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.trim();
    let said = if stderr.is_empty() {
        "nothing on stderr".to_owned()
    } else {
        let mut shown: String = stderr.chars().take(STDERR_LIMIT).collect();
        if shown.len() < stderr.len() {
            shown.push_str(" …");
        }
        format!("it said: {}", shown.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    let status = out.status.code().map_or_else(|| "was killed by a signal".to_owned(), |c| format!("exited with {c}"));
    format!("the exec credential plugin `{}` {status}; {said}", command_line(cmd))
}

/// The program and its arguments from the library's rendering of the command
/// (`cd "dir" && KEY="value" "aws" "eks" "get-token"`): environment and directory dropped.
fn command_line(debug: &str) -> String {
    let mut words = Vec::new();
    let mut chars = debug.chars().peekable();
    let mut skip_next = false;
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        // One token: bare text up to a blank, with quoted parts (backslash escapes) inside.
        let (mut token, mut quoted) = (String::new(), false);
        let mut assignment = false;
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            if c == '"' {
                quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => token.extend(chars.next()),
                        '"' => break,
                        c => token.push(c),
                    }
                }
            } else {
                if c == '=' && !quoted {
                    assignment = true;
                }
                token.push(c);
            }
        }
        if std::mem::take(&mut skip_next) {
            continue;
        }
        match token.as_str() {
            _ if quoted && !assignment => words.push(token),
            "cd" | "-u" => skip_next = true,
            _ => {}
        }
    }
    if words.is_empty() {
        debug.to_owned()
    } else {
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{ExitStatus, Output};

    use kube::client::AuthError;

    #[test]
    fn a_failed_plugin_is_told_by_its_command_and_stderr() {
        let out = Output {
            status: ExitStatus::from_raw(3 << 8),
            stdout: b"ignored".to_vec(),
            stderr: b"\nerror: token expired,\n  run `aws sso login`\n".to_vec(),
        };
        let cmd = r#"cd "/home/me" && KUBERNETES_EXEC_INFO="{\"kind\":\"ExecCredential\"}" "aws" "eks" "get-token" "--cluster-name" "prod""#;
        let error = kube::Error::Auth(AuthError::AuthExecRun { cmd: cmd.to_owned(), out: Box::new(out) });
        let said = super::describe(&error).unwrap();
        assert_eq!(
            said,
            "the exec credential plugin `aws eks get-token --cluster-name prod` exited with 3; \
             it said: error: token expired, run `aws sso login`"
        );
        assert!(!said.contains("Output") && !said.contains("stderr: ["), "{said}");
        let plain = super::command_line(r#""kubelogin" "get-token""#);
        assert_eq!(plain, "kubelogin get-token");
        assert!(super::describe(&std::io::Error::other("x")).is_none());
    }
}
