;;; e2e.el --- End-to-end test of vap-lsp.el with eglot and flymake  -*- lexical-binding: t; -*-

;; VAP_LSP_INIT=init.el VAP_LSP_FILE=examples/broken/policy-field-errors.yaml \
;;   emacs --batch -Q -l editors/emacs/test/e2e.el
;;
;; Loads Debian's elpa packages, then VAP_LSP_INIT: the README's eglot snippet (`vap-lsp' on PATH,
;; `eglot-ensure' in `yaml-mode-hook').  Opens the policy, which connects eglot, waits until
;; flymake holds the server's diagnostics and asserts on them.  Exits 0 with "PASS", or 1 with "FAIL: ...".

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
        (unless (require 'yaml-mode nil t)
          ;; Without elpa-yaml-mode: a stand-in YAML mode (vap-lsp.el lists yaml-mode).
          (define-derived-mode yaml-mode prog-mode "YAML")
          (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode)))
        (load init nil t)
        (cl-assert (equal vap-lsp-kubernetes-version "1.33"))
        (require 'eglot)
        (cl-assert (eq (cdr (car eglot-server-programs)) #'vap-lsp--eglot-contact))
        (find-file file)
        (cl-assert (eq major-mode 'yaml-mode) nil "major mode is %s" major-mode)
        (cl-assert (equal (nth 3 (eglot--guess-contact))
                          (list "vap-lsp" "serve" :initializationOptions (vap-lsp-settings)))
                   nil "eglot contact %S" (eglot--guess-contact))
        ;; eglot-ensure (the snippet's hook) connects after the command that opened the file: what
        ;; the command loop does then, batch mode has to do by hand.
        (run-hooks 'post-command-hook)
        (cl-assert (vap-lsp-test--wait (lambda () (eglot-current-server)) 30) nil "eglot did not connect")
        (vap-lsp-test--out "ok eglot connected: %s" (plist-get (eglot--server-info (eglot-current-server)) :name))
        (flymake-start)
        (cl-assert (vap-lsp-test--wait
                    ;; All six errors (polled: the server may publish in more than one step).
                    (lambda () (>= (cl-count-if (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-error))
                                                (flymake-diagnostics))
                                   6))
                    60)
                   nil "flymake has not 6 errors within 60 s: %S" (flymake-diagnostics))
        (let* ((diagnostics (flymake-diagnostics))
               (errors (cl-remove-if-not (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-error)) diagnostics))
               (texts (mapcar #'flymake-diagnostic-text diagnostics)))
          (cl-assert (= (length errors) 6) nil "expected 6 errors, got %d: %S" (length errors) texts)
          (dolist (needle '("spec.failurePolicy: Unsupported value: \"Sometimes\""
                            "metadata.name: Invalid value: \"Deny_Privileged\""
                            "unknown field \"spec.validation\""))
            (cl-assert (cl-some (lambda (text) (string-search needle text)) texts)
                       nil "no diagnostic containing %S in %S" needle texts))
          ;; The failurePolicy error sits on "Sometimes" (line 7, columns 18-26).
          (let ((d (cl-find-if (lambda (d) (string-search "spec.failurePolicy" (flymake-diagnostic-text d)))
                               errors)))
            (save-excursion
              (goto-char (flymake-diagnostic-beg d))
              (cl-assert (= (line-number-at-pos) 7) nil "failurePolicy error on line %d" (line-number-at-pos))
              (cl-assert (equal (buffer-substring (flymake-diagnostic-beg d) (flymake-diagnostic-end d))
                                "Sometimes")
                         nil "failurePolicy error covers %S"
                         (buffer-substring (flymake-diagnostic-beg d) (flymake-diagnostic-end d)))))
          (vap-lsp-test--out "ok flymake: %d diagnostics, %d errors" (length diagnostics) (length errors)))
        (eglot-shutdown (eglot-current-server))
        (setq status 0)
        (vap-lsp-test--out "PASS"))
    (error (vap-lsp-test--out "FAIL: %s" (error-message-string err))))
  (kill-emacs status))

;;; e2e.el ends here
