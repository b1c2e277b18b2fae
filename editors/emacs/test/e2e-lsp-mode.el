;;; e2e-lsp-mode.el --- End-to-end test of vap-lsp.el with lsp-mode  -*- lexical-binding: t; -*-

;; VAP_LSP_INIT=init.el VAP_LSP_FILE=examples/broken/policy-field-errors.yaml \
;;   emacs --batch -Q -l editors/emacs/test/e2e-lsp-mode.el
;;
;; Loads Debian's elpa-lsp-mode, then VAP_LSP_INIT: the README's lsp-mode snippet (`vap-lsp' on
;; PATH, `lsp' in `yaml-mode-hook').  Opening the policy runs the hook, which starts vap-lsp as an
;; add-on client (yaml-language-server is not installed here, so it is the only one).  Waits for
;; the diagnostics in flymake, then asks for a hover and for completion through lsp-mode's own
;; functions.  Prints what it saw ("diagnostic",
;; "hover", "completion" lines) for the pytest wrapper to assert on; exits 0 with "PASS", or 1
;; with "FAIL: ...".

;;; Code:

(load (expand-file-name "e2e-common" (file-name-directory load-file-name)) nil t)

(let* ((init (or (getenv "VAP_LSP_INIT") (error "VAP_LSP_INIT is not set")))
       (file (expand-file-name (or (getenv "VAP_LSP_FILE") (error "VAP_LSP_FILE is not set"))))
       (status 1))
  (condition-case err
      (progn
        ;; Debian's elpa-* packages with their autoloads, as a user's init has them (-Q skips it).
        (require 'package)
        (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
        (package-initialize)
        ;; Batch mode: no questions, no files outside the temporary HOME.
        (setq lsp-auto-guess-root t
              lsp-restart 'ignore
              lsp-keep-workspace-alive nil
              lsp-enable-file-watchers nil
              lsp-enable-snippet nil        ; no yasnippet here
              lsp-diagnostics-provider :flymake
              lsp-session-file (expand-file-name "lsp-session" temporary-file-directory))
        (require 'lsp-mode)
        (load init nil t)
        (cl-assert (equal vap-lsp-kubernetes-version "1.33"))
        (cl-assert (equal vap-lsp-command '("vap-lsp" "serve")))
        (cl-assert (gethash 'vap-lsp lsp-clients) nil "vap-lsp is not registered with lsp-mode")
        (cl-assert (lsp--client-add-on? (gethash 'vap-lsp lsp-clients)))
        (find-file file)
        (cl-assert (eq major-mode 'yaml-mode) nil "major mode is %s" major-mode)
        (cl-assert (vap-lsp-test--wait
                    (lambda () (cl-some (lambda (w) (and (eq (lsp--workspace-status w) 'initialized)
                                                         (eq (lsp--client-server-id (lsp--workspace-client w))
                                                             'vap-lsp)))
                                        (lsp-workspaces)))
                    60)
                   nil "lsp-mode did not start vap-lsp: %S" (lsp-workspaces))
        (vap-lsp-test--out "ok lsp-mode workspaces: %s"
                           (mapconcat (lambda (w) (symbol-name (lsp--client-server-id (lsp--workspace-client w))))
                                      (lsp-workspaces) " "))
        ;; Diagnostics as flymake shows them (lsp-mode's flymake back end).
        (cl-assert (vap-lsp-test--wait (lambda () (>= (length (flymake-diagnostics)) 7)) 60)
                   nil "flymake has %S" (flymake-diagnostics))
        (dolist (d (sort (mapcar (lambda (d)
                                   (save-excursion
                                     (goto-char (flymake-diagnostic-beg d))
                                     (format "%d %s %S %s" (line-number-at-pos) (flymake-diagnostic-type d)
                                             (buffer-substring-no-properties (flymake-diagnostic-beg d)
                                                                             (flymake-diagnostic-end d))
                                             (car (split-string (flymake-diagnostic-text d) "\n")))))
                                 (flymake-diagnostics))
                         #'string<))
          (vap-lsp-test--out "diagnostic %s" d))
        ;; Hover and completion in `object.spec.hostNetwork != true' (line 17).
        (goto-char (point-min))
        (forward-line 16)
        (search-forward "\"object.spec.")
        (let ((after-spec (point)))
          (backward-char (length "object.spec."))
          (forward-char 2)
          (let* ((hover (lsp-request "textDocument/hover" (lsp--text-document-position-params)))
                 (contents (lsp-get hover :contents))
                 (range (lsp-get hover :range)))
            (vap-lsp-test--out "hover %s" (json-encode (lsp-get contents :value)))
            (vap-lsp-test--out "hover range %s:%s-%s:%s"
                               (lsp-get (lsp-get range :start) :line) (lsp-get (lsp-get range :start) :character)
                               (lsp-get (lsp-get range :end) :line) (lsp-get (lsp-get range :end) :character)))
          ;; Completion the way a user gets it: lsp-mode's completion-at-point function.
          (goto-char after-spec)
          (let* ((capf (lsp-completion-at-point))
                 (candidates (all-completions "" (nth 2 capf))))
            (vap-lsp-test--out "completion %s" (string-join (sort (mapcar #'substring-no-properties candidates)
                                                                  #'string<)
                                                            " "))))
        (setq status 0)
        (vap-lsp-test--out "PASS"))
    (error (vap-lsp-test--out "FAIL: %s" (error-message-string err))))
  (kill-emacs status))

;;; e2e-lsp-mode.el ends here
